import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { AppLink, Screen } from "../../components/nav";
import { useLocalTime } from "../../components/trade/bits";
import { apiOrLogin } from "../../lib/api.server";
import { useRootData } from "../../root";
import tradeStyles from "../../styles/trade.css";
import { formatUsdt } from "../../../worker/domain/money/units";
import { openNote, verifySumPath, type Handover } from "../../../worker/domain/transparency/verify";
import { trustedKey } from "../../lib/proof/check";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: tradeStyles }];

type Entry = {
  note: string;
  taken_at_ms: number;
  total_micro: string;
  root_hash: string;
  leaf: { account: string; balance_micro: string; nonce: string };
  path: { side: "left" | "right"; hash: string; sum_micro: string }[];
};

/**
 * `/pages/me/sub/liabilities`: the user's own entry in the latest proof-of-liabilities snapshot,
 * checked here in the browser (the note's signature with the log's key, and the sum path up to
 * the signed root and total). The server sends the data, never the verdict.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const [entry, key] = await Promise.all([apiOrLogin<Entry>(context, request, "/api/proof/liabilities"), apiOrLogin<{ verifier_key: string; handovers?: Handover[] }>(context, request, "/api/proof/key")]);
  return { entry: entry.code === 1 ? entry.data : null, refused: entry.code === 1 ? null : entry.msg, verifier_key: key.code === 1 ? key.data.verifier_key : "", handovers: key.code === 1 ? (key.data.handovers ?? []) : [] };
}

type Check = { signature: boolean; path: boolean };

export default function LiabilitiesPage() {
  const { t } = useTranslation("trade");
  const { entry, refused, verifier_key, handovers } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const time = useLocalTime(locale);
  const [check, setCheck] = useState<Check | null>(null);
  useEffect(() => {
    if (!entry) return;
    // The key this browser pinned from the log (Verify on an order) wins over the one sent now,
    // unless handover checkpoints lead from it to the one sent now (decision 136).
    let key = verifier_key;
    try {
      key = trustedKey(JSON.parse(localStorage.getItem("proofline.log.key") ?? "null"), verifier_key, handovers);
    } catch {
      key = verifier_key;
    }
    const opened = openNote(entry.note, key);
    const lines = opened.status === "ok" ? opened.body.split("\n") : [];
    const signature = opened.status === "ok" && lines[1] === String(entry.taken_at_ms) && lines[2] === entry.total_micro && lines[3] === entry.root_hash;
    setCheck({ signature, path: verifySumPath(entry.leaf, entry.path, entry.root_hash, entry.total_micro) });
  }, [entry, verifier_key]);

  const ok = check ? check.signature && check.path : null;
  return (
    <Screen title={t("liabilities.title")} back>
      <section className="card prose">
        <p>{t("liabilities.intro")}</p>
      </section>
      {refused ? (
        <section className="card">
          <p className="t-notice" data-testid="liabilities-refused">
            {refused}
          </p>
        </section>
      ) : entry ? (
        <section className="card t-verify" data-testid="liabilities-entry">
          <p className="t-rule-applied" data-testid="liabilities-included">
            {t("liabilities.included", { amount: formatUsdt(Number(entry.leaf.balance_micro), locale), total: formatUsdt(Number(entry.total_micro), locale) })}
          </p>
          <p className="t-muted">{t("liabilities.taken", { time: time.dateTime(entry.taken_at_ms) })}</p>
          {check ? (
            <>
              <p className={ok ? "t-verify-verdict t-verify-ok" : "t-verify-verdict t-verify-bad"} role="status" data-testid="liabilities-verdict" data-ok={ok ? "true" : "false"}>
                {ok ? t("liabilities.verified") : t("liabilities.failed")}
              </p>
              <ul className="t-verify-steps">
                <li className={check.signature ? "t-verify-step-ok" : "t-verify-step-bad"}>
                  <span aria-hidden="true">{check.signature ? "✓" : "✗"}</span> {t(`liabilities.signature_${check.signature ? "ok" : "bad"}`)}
                </li>
                <li className={check.path ? "t-verify-step-ok" : "t-verify-step-bad"}>
                  <span aria-hidden="true">{check.path ? "✓" : "✗"}</span> {t(`liabilities.path_${check.path ? "ok" : "bad"}`)}
                </li>
              </ul>
            </>
          ) : (
            <p className="t-muted">{t("verify.checking")}</p>
          )}
          <p className="t-muted">
            {t("liabilities.account", { account: entry.leaf.account })} · <AppLink to="/proof" className="p-link">{t("proof_page.title")}</AppLink>
          </p>
        </section>
      ) : null}
    </Screen>
  );
}
