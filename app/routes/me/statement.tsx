import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { CsvDownload } from "../../components/money/csv-download";
import { RecordList } from "../../components/money/record-list";
import { LocalTime } from "../../components/money/local-time";
import { useLedgerWords } from "../../lib/ledger-words";
import { AppLink, Screen } from "../../components/nav";
import { apiOrLogin } from "../../lib/api.server";
import { loadPages, PAGE_ROWS, pagesParam, type Paged, type StatementLine } from "../../lib/money";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
import { formatSigned, formatUsdtExact } from "../../../worker/domain/money/units";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const pages = pagesParam(new URL(request.url));
  return loadPages<StatementLine>(
    pages,
    (page_no) => apiOrLogin<Paged<StatementLine>>(context, request, "/api/user/records", { page_no, row: PAGE_ROWS }),
    // A move between two of the user's own accounts is one transfer with two lines.
    (l) => `${l.id}:${l.account}`,
  );
}

/** The user's statement: every ledger line on their accounts, newest first. */
export default function Statement() {
  const { t } = useTranslation("wallet");
  const { items, total, pages, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("record.title")} back>
      <p className="muted m-intro">{t("record.intro")}</p>
      <CsvDownload kind="statement" />
      <RecordList
        label={t("record.title")}
        items={items}
        error={error}
        pages={pages}
        total={total}
        listClassName="card m-lines"
        renderItem={(l) => <LineRow key={`${l.id}:${l.account}`} l={l} />}
      />
    </Screen>
  );
}

function LineRow({ l }: { l: StatementLine }) {
  const { t } = useTranslation("wallet");
  const words = useLedgerWords();
  const locale = useRootData()?.locale ?? "en";
  return (
    <li>
      <AppLink to={`/pages/me/sub/trade-detail?id=${l.id}`} className="m-line" data-testid="record-row" data-id={l.id} data-code={l.code} data-account={l.account}>
        <span className="m-line-main">
          <strong className="m-line-title">{words.code(l.code)}</strong>
          <span className="m-line-sub">
            <span className="m-tag">{words.account(l.account)}</span>
            <LocalTime ms={l.created_at} locale={locale} />
          </span>
        </span>
        <span className="m-line-side">
          <strong className={l.amount_micro < 0 ? "m-neg" : "m-pos"} data-testid="record-amount">
            {formatSigned(l.amount_micro, locale)}
          </strong>
          <span className="m-line-sub">{t("record.balance_after", { amount: formatUsdtExact(l.balance_after_micro, locale) })}</span>
        </span>
        <span className="m-chevron" aria-hidden="true">
          ›
        </span>
      </AppLink>
    </li>
  );
}
