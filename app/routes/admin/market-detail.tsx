import { TableWrap } from "../../components/admin/money";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { useRevalidateEvery } from "../../lib/revalidate";
import { useTranslation } from "react-i18next";
import { ExposureChart, type ExposurePoint } from "../../components/admin/exposure-chart";
import { ProductForm, type ProductRow } from "../../components/admin/product-form";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { decideProposal, loadProposals } from "../../lib/admin-terms.server";
import { TermsProposals } from "../../components/admin/terms-proposals";
import { formatUsdt } from "../../../worker/domain/money/units";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type Side = { stake_micro: number; payout_micro: number };
type Exposure = { up: Side; down: Side; worst_case_micro: number; limit_micro: number; history: ExposurePoint[] };

/** The exposure is read again this often while the page is open. */
const REFRESH_MS = 2_000;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = String(params.id ?? "");
  if (!/^\d{1,15}$/.test(id)) throw new Response("Not found", { status: 404 });
  const [list, exposure, proposals] = await Promise.all([
    adminApiOrLogin<ProductRow[]>(context, request, "/api/admin/products"),
    adminApiOrLogin<Exposure>(context, request, `/api/admin/products/${id}/exposure`),
    loadProposals(context, request, "market"),
  ]);
  const product = list.data?.find((p) => p.id === Number(id));
  if (!product || exposure.code !== 1) throw new Response("Not found", { status: 404 });
  return { product, exposure: exposure.data, proposals: proposals.filter((p) => p.target === product.symbol) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const decided = await decideProposal(context, request);
  if (decided) return decided;
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  return adminApi(context, request, "/api/admin/products/save", form);
}

/** One market: its open exposure, live, with its last hour as a chart, and its settings. */
export default function AdminProduct() {
  const { t, i18n } = useTranslation("admin");
  const { product, exposure, proposals } = useLoaderData<typeof loader>();
  useRevalidateEvery(REFRESH_MS);
  const usdt = (micro: number) => formatUsdt(micro, i18n.language);
  const over = exposure.worst_case_micro > exposure.limit_micro;
  return (
    <section>
      <p>
        <Link to="/admin/products">← {t("products.all_markets")}</Link>
      </p>
      <h1>
        {product.symbol} · {product.name}
      </h1>
      <div className="card" data-testid="exposure">
        <h3 className="card-title">{t("products.exposure_title")}</h3>
        <p className="muted">{t("products.exposure_note")}</p>
        <TableWrap fit>
          <table className="table">
            <thead>
              <tr>
                <th />
                <th>{t("products.open_stakes")}</th>
                <th>{t("products.pays_if_won")}</th>
              </tr>
            </thead>
            <tbody>
              {(["up", "down"] as const).map((side) => (
                <tr key={side} data-side={side}>
                  <th>{t(`products.side_${side}`)}</th>
                  <td>{usdt(exposure[side].stake_micro)}</td>
                  <td>{usdt(exposure[side].payout_micro)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        <p data-testid="worst-case">
          {t("products.worst_case")}: <strong className={over ? "down" : undefined}>{usdt(exposure.worst_case_micro)}</strong> · {t("products.limit")}: {usdt(exposure.limit_micro)} USDT
        </p>
        {exposure.history.length > 0 ? (
          <ExposureChart history={exposure.history} labels={[t("products.side_up"), t("products.side_down"), t("products.worst_case")]} locale={i18n.language} />
        ) : (
          <p className="muted">{t("products.no_history")}</p>
        )}
      </div>
      <TermsProposals proposals={proposals} />
      <ProductForm product={product} />
    </section>
  );
}
