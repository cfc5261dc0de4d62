import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Screen } from "../../components/nav";
import { useLocalTime } from "../../components/trade/bits";
import { api } from "../../lib/api.server";
import { useRootData } from "../../root";
import tradeStyles from "../../styles/trade.css";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: tradeStyles }];

type Checkpoint = { tree_size: number; note: string; created_at_ms: number | null };
const HISTORY = 30;

/**
 * `/proof` (public): the transparency log as anyone can check it: the latest signed checkpoint,
 * the ones before it, the key that signs them, the witnesses that must cosign them, and how to
 * verify everything without us (docs/transparency.md).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const [latest, key, first] = await Promise.all([
    api<Checkpoint>(context, request, "/api/proof/checkpoint"),
    api<{ verifier_key: string; origin: string; witnesses: string[]; quorum: number }>(context, request, "/api/proof/key"),
    api<{ list: Checkpoint[]; total: number }>(context, request, "/api/proof/checkpoints", { row: HISTORY }),
  ]);
  // The newest checkpoints: the last page of the oldest-first list.
  const total = first.code === 1 ? first.data.total : 0;
  const lastPage = Math.max(1, Math.ceil(total / HISTORY));
  const history = lastPage === 1 ? first : await api<{ list: Checkpoint[]; total: number }>(context, request, "/api/proof/checkpoints", { row: HISTORY, page_no: lastPage });
  return {
    latest: latest.code === 1 ? latest.data : null,
    key: key.code === 1 ? key.data : null,
    keyError: key.code === 1 ? null : key.msg,
    history: history.code === 1 ? [...history.data.list].reverse() : [],
    total,
    origin: new URL(request.url).origin,
  };
}

export default function ProofPage() {
  const { t } = useTranslation("trade");
  const { latest, key, keyError, history, total, origin } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const time = useLocalTime(locale);
  const root = latest?.note.split("\n")[2] ?? "";
  return (
    <Screen title={t("proof_page.title")} back>
      <section className="card prose">
        <p className="lead">{t("proof_page.intro")}</p>
      </section>

      <section className="card" aria-labelledby="p-latest">
        <h2 id="p-latest" className="card-title">
          {t("proof_page.latest")}
        </h2>
        {latest && latest.tree_size > 0 ? (
          <dl className="t-facts">
            <div>
              <dt>{t("proof_page.size")}</dt>
              <dd data-testid="proof-size">{latest.tree_size.toLocaleString(locale)}</dd>
            </div>
            <div>
              <dt>{t("proof_page.signed_at")}</dt>
              <dd>{latest.created_at_ms ? time.dateTime(latest.created_at_ms) : "--"}</dd>
            </div>
            <div>
              <dt>{t("proof_page.root")}</dt>
              <dd className="p-mono">{root}</dd>
            </div>
          </dl>
        ) : (
          <p className="t-muted">{t("proof_page.empty")}</p>
        )}
        {latest?.note ? <pre className="p-note" aria-label={t("proof_page.note")}>{latest.note}</pre> : null}
      </section>

      <section className="card" aria-labelledby="p-key">
        <h2 id="p-key" className="card-title">
          {t("proof_page.key")}
        </h2>
        {key ? <p className="p-mono" data-testid="proof-key">{key.verifier_key}</p> : <p className="t-notice">{keyError}</p>}
        <p className="t-muted">{t("proof_page.key_note")}</p>
      </section>

      <section className="card" aria-labelledby="p-witnesses" data-testid="proof-witnesses">
        <h2 id="p-witnesses" className="card-title">
          {t("proof_page.witnesses")}
        </h2>
        {key && key.witnesses.length > 0 ? (
          <>
            <p className="t-muted">{t("proof_page.witnesses_note", { quorum: key.quorum, n: key.witnesses.length })}</p>
            <ul className="p-history">
              {key.witnesses.map((w) => (
                <li key={w} className="p-mono" data-testid="proof-witness">
                  {w}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p className="t-muted">{t("proof_page.witnesses_none")}</p>
        )}
      </section>

      <section className="card prose" aria-labelledby="p-how">
        <h2 id="p-how">{t("proof_page.how")}</h2>
        <ol>
          <li>{t("proof_page.how_1")}</li>
          <li>{t("proof_page.how_2")}</li>
          <li>{t("proof_page.how_3")}</li>
          <li>{t("proof_page.how_4")}</li>
          <li>{t("proof_page.how_5")}</li>
        </ol>
        <p>{t("proof_page.cli")}</p>
        <pre className="p-note">{`npm run verify -- --base ${origin} --token <your session token>${key && key.witnesses.length > 0 ? `${key.witnesses.map((w) => ` --witness ${w}`).join("")} --quorum ${key.quorum}` : ""}`}</pre>
        <p>
          {t("proof_page.raw")}{" "}
          <a href="/api/proof/checkpoints" className="p-link">
            /api/proof/checkpoints
          </a>
          {" · "}
          <a href="/api/proof/tile/tile/entries/000.p/1" className="p-link">
            /api/proof/tile/…
          </a>
        </p>
      </section>

      <section className="card" aria-labelledby="p-history">
        <h2 id="p-history" className="card-title">
          {t("proof_page.history", { n: total.toLocaleString(locale) })}
        </h2>
        {history.length === 0 ? (
          <p className="t-muted">{t("proof_page.empty")}</p>
        ) : (
          <ul className="p-history">
            {history.map((c) => (
              <li key={c.tree_size}>
                <span>{t("proof_page.size_n", { n: c.tree_size.toLocaleString(locale) })}</span>
                <span className="t-muted">{c.created_at_ms ? time.dateTime(c.created_at_ms) : ""}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Screen>
  );
}
