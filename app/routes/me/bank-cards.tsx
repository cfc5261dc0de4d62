import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import { BankIcon } from "../../components/money/icons";
import { Notice } from "../../components/money/notice";
import { AppLink, Empty, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import type { BankCardItem } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<BankCardItem[]>(context, request, "/api/user/bank_list");
  return { cards: res.code === 1 ? res.data : [], error: res.code === 1 ? "" : res.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/del_bank", { id: String(form.get("id") ?? "") });
}

/** The user's bound bank cards (numbers masked). */
export default function BankCards() {
  const { t } = useTranslation("wallet");
  const { cards, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("kabaw.title")} back>
      {error ? (
        <Notice tone="bad">
          <p>{error}</p>
        </Notice>
      ) : null}
      {cards.length === 0 ? (
        <section className="card">
          <Empty />
        </section>
      ) : (
        <ul className="m-list" aria-label={t("kabaw.title")}>
          {cards.map((c) => (
            <CardRow key={c.id} c={c} />
          ))}
        </ul>
      )}
      <p className="muted m-center">{t("kabaw.note")}</p>
      <AppLink to="/pages/me/sub/add-kabaw" state={{ back: true }} className="btn btn-primary btn-block" data-testid="add-bank-link">
        + {t("kabaw.add")}
      </AppLink>
    </Screen>
  );
}

function CardRow({ c }: { c: BankCardItem }) {
  const { t } = useTranslation("wallet");
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_data, msg) => ui.toast(msg));
  return (
    <li className="card m-bound m-bank" data-testid="bank-row" data-id={c.id}>
      <span className="m-bound-icon m-bound-icon-bank" aria-hidden="true">
        <BankIcon />
      </span>
      <div className="m-bound-text">
        <p className="m-bound-title">{c.bank}</p>
        <p className="m-bound-detail">
          <span className="m-bound-label">{t("kabaw.cardholder")}</span> {c.name}
        </p>
        <p className="m-mono m-bound-card" data-testid="bank-card-number">
          {c.card_number}
        </p>
      </div>
      <button
        type="button"
        className="m-delete"
        disabled={fetcher.state !== "idle"}
        aria-label={t("kabaw.delete_label", { card: c.card_number })}
        data-testid="bank-delete"
        onClick={async () => {
          if (await ui.confirm(t("kabaw.delete_confirm", { bank: c.bank, card: c.card_number }))) fetcher.submit({ id: String(c.id) }, { method: "post" });
        }}
      >
        {t("delete")}
      </button>
    </li>
  );
}
