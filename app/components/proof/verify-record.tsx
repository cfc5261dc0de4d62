import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { AppLink } from "../nav";
import { checkRecord, NO_WITNESSES, STEPS, trustedKey, witnessPolicy, type Inclusion, type Seen, type Step, type WitnessPolicy } from "../../lib/proof/check";
import type { Handover } from "../../../worker/domain/transparency/verify";

type Checked = { inclusion: Inclusion; verifier_key: string; handovers?: Handover[]; witnesses?: WitnessPolicy; consistency: string[] | null };
type Answer = { code: number; msg: string; data: Checked | Record<string, unknown> };

const KEY = "proofline.log.key";
const SEEN = "proofline.log.seen";
const WITNESSES = "proofline.log.witnesses";

function stored<T>(name: string): T | null {
  try {
    const raw = localStorage.getItem(name);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

/**
 * "Verify" for one record: this browser fetches the proof and checks it itself (the log's key
 * it pinned the first time, the values this page shows, the proof, and that the log only grew
 * since the last checkpoint it saw). Each step is shown in words; a failure says which.
 */
export function VerifyRecord({ kind, id, expected }: { kind: "order" | "transfer"; id: number; expected: Record<string, unknown> }) {
  const { t } = useTranslation("trade");
  const fetcher = useFetcher<Answer>();
  const [result, setResult] = useState<{ steps: Step[]; ms: number } | null>(null);
  // The page's values as of the answer (a ref: a new object each render must not re-run the check).
  const expectedRef = useRef(expected);
  expectedRef.current = expected;

  const start = () => {
    setResult(null);
    const seen = stored<Seen>(SEEN);
    fetcher.load(`/pages/proof/check?${kind}_id=${id}${seen ? `&first=${seen.tree_size}` : ""}`);
  };

  useEffect(() => {
    const answer = fetcher.data;
    if (fetcher.state !== "idle" || !answer || answer.code !== 1) return;
    const data = answer.data as Checked;
    const t0 = performance.now();
    // The key this browser met first is the one it keeps trusting, or a key it handed over to
    // in a checkpoint it signed (decision 136): any other new key fails the signature step.
    const key = trustedKey(stored<string>(KEY), data.verifier_key, data.handovers);
    // So are the witnesses: a log that drops them fails the witness step.
    const policy = witnessPolicy(stored<WitnessPolicy>(WITNESSES), data.witnesses ?? NO_WITNESSES);
    const r = checkRecord(data.inclusion, key, expectedRef.current, stored<Seen>(SEEN), data.consistency, policy);
    const ms = performance.now() - t0;
    if (r.accepted) {
      localStorage.setItem(KEY, JSON.stringify(key));
      localStorage.setItem(SEEN, JSON.stringify(r.accepted));
      localStorage.setItem(WITNESSES, JSON.stringify(policy));
    }
    setResult({ steps: r.steps, ms });
  }, [fetcher.state, fetcher.data]);

  const busy = fetcher.state !== "idle";
  const refused = fetcher.state === "idle" && fetcher.data && fetcher.data.code !== 1 ? fetcher.data.msg : null;
  const allOk = result?.steps.every((s) => s.ok);
  return (
    <section className="card t-verify" aria-labelledby="t-verify-title" data-testid="verify-record">
      <h2 id="t-verify-title" className="card-title">
        {t(kind === "order" ? "verify.title" : "verify.transfer.title")}
      </h2>
      <p className="t-muted">
        {t(kind === "order" ? "verify.intro" : "verify.transfer.intro")}{" "}
        <AppLink to="/proof" className="p-link">
          {t("proof_page.title")}
        </AppLink>
      </p>
      <button type="button" className="btn btn-plain" onClick={start} disabled={busy} data-testid="verify-button">
        {busy ? t("verify.checking") : result || refused ? t("verify.again") : t("verify.button")}
      </button>
      {refused ? (
        <p className="t-notice" role="status" data-testid="verify-refused">
          {refused}
        </p>
      ) : null}
      {result ? (
        <>
          <p className={allOk ? "t-verify-verdict t-verify-ok" : "t-verify-verdict t-verify-bad"} role="status" data-testid="verify-verdict" data-ms={result.ms.toFixed(1)}>
            {allOk ? t(kind === "order" ? "verify.all_ok" : "verify.transfer.all_ok") : t("verify.failed")}
          </p>
          <ul className="t-verify-steps">
            {STEPS.map((name) => {
              const s = result.steps.find((x) => x.step === name)!;
              return (
                <li key={name} data-testid={`verify-step-${name}`} data-ok={s.ok ? "true" : "false"} className={s.ok ? "t-verify-step-ok" : "t-verify-step-bad"}>
                  <span aria-hidden="true">{s.ok ? "✓" : "✗"}</span> {t(`verify.step.${name}.${s.ok ? (s.detail === "none" ? "none" : "ok") : "bad"}`)}
                  {!s.ok && s.detail && (name === "leaf_matches" || name === "witnessed") ? <span className="t-muted"> ({s.detail})</span> : null}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
    </section>
  );
}
