import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EMPTY_PRODUCT, ProductForm, type ProductRow } from "../../components/admin/product-form";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { decideProposal, loadProposals } from "../../lib/admin-terms.server";
import { TermsProposals } from "../../components/admin/terms-proposals";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [products, proposals] = await Promise.all([adminApiOrLogin<ProductRow[]>(context, request, "/api/admin/products"), loadProposals(context, request, "market")]);
  return { products: products.data, proposals };
}

/** A market's save (its terms become a proposal), or a decision on a proposal. */
export async function action({ request, context }: ActionFunctionArgs) {
  const decided = await decideProposal(context, request);
  if (decided) return decided;
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  return adminApi(context, request, "/api/admin/products/save", form);
}

/**
 * Markets: symbols, delivery durations with their profit rates and stake limits, fee rate,
 * price tolerance, trading hours, exposure limit. There is deliberately nothing here about
 * outcomes: they come from the price feed alone. Each market's page shows its open exposure.
 */
export default function AdminProducts() {
  const { t } = useTranslation("admin");
  const { products, proposals } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("products.title")}</h1>
      <p className="muted">{t("products.note")}</p>
      <h2>{t("terms.waiting")}</h2>
      <p className="muted">{t("terms.note")}</p>
      <TermsProposals proposals={proposals} empty />
      {[...products, EMPTY_PRODUCT].map((p) => (
        <ProductForm key={p.id || "new"} product={p} />
      ))}
    </section>
  );
}
