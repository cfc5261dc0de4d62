import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import { Notice } from "../../components/money/notice";
import { AppLink, Empty, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import type { WalletItem } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<WalletItem[]>(context, request, "/api/user/wallet_list");
  return { wallets: res.code === 1 ? res.data : [], error: res.code === 1 ? "" : res.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/del_wallet", { id: String(form.get("id") ?? "") });
}

/** The user's bound withdrawal addresses. */
export default function Wallets() {
  const { t } = useTranslation("wallet");
  const { wallets, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("wallet.title")} back>
      {error ? (
        <Notice tone="bad">
          <p>{error}</p>
        </Notice>
      ) : null}
      {wallets.length === 0 ? (
        <section className="card">
          <Empty />
        </section>
      ) : (
        <ul className="m-list" aria-label={t("wallet.title")}>
          {wallets.map((w) => (
            <WalletRow key={w.id} w={w} />
          ))}
        </ul>
      )}
      <p className="muted m-center">{t("wallet.note")}</p>
      <AppLink to="/pages/me/sub/add-wallet" state={{ back: true }} className="btn btn-primary btn-block" data-testid="add-wallet-link">
        + {t("wallet.add")}
      </AppLink>
    </Screen>
  );
}

function WalletRow({ w }: { w: WalletItem }) {
  const { t } = useTranslation("wallet");
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_data, msg) => ui.toast(msg));
  return (
    <li className="card m-bound" data-testid="wallet-row" data-id={w.id}>
      <span className="m-bound-icon m-bound-icon-crypto" aria-hidden="true">
        ₮
      </span>
      <div className="m-bound-text">
        <p className="m-bound-title">
          <span className="m-tag">{w.currency}</span>
          <span className="m-tag m-tag-blue">{w.chain}</span>
        </p>
        <p className="m-mono m-break m-bound-detail">{w.address}</p>
      </div>
      <button
        type="button"
        className="m-delete"
        disabled={fetcher.state !== "idle"}
        aria-label={t("wallet.delete_label", { address: w.address })}
        data-testid="wallet-delete"
        onClick={async () => {
          if (await ui.confirm(t("wallet.delete_confirm", { address: w.address }))) fetcher.submit({ id: String(w.id) }, { method: "post" });
        }}
      >
        {t("delete")}
      </button>
    </li>
  );
}
