import { useFetcher } from "@remix-run/react";
import { useGuardedFetcher } from "../lib/tap-guard";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { assertPasskey, type PasskeyOutcome } from "../lib/passkey-browser";
import { useEnvelope, type PageEnvelope } from "../lib/use-envelope";
import { KeyIcon } from "./device-icons";
import { useUi } from "./ui";

type Options = Parameters<typeof assertPasskey>[0];

/**
 * "Sign in with a passkey" on the login page: a challenge from the server, the authenticator
 * picks one of its passkeys for this site (no account typed), the answer goes back to sign in.
 */
export function PasskeySignIn({ path }: { path: string }) {
  const { t } = useTranslation("auth");
  const ui = useUi();
  const options = useGuardedFetcher<PageEnvelope<{ options: Options }>>({ key: "passkey-options" });
  const verify = useFetcher<PageEnvelope>({ key: "passkey-verify" });
  const asked = useRef<unknown>(null);
  useEnvelope(verify.data);
  useEnvelope(options.data, async (data) => {
    if (asked.current === data) return;
    asked.current = data;
    const outcome = await assertPasskey(data.options as Options);
    if (outcome.status !== "ok") return ui.toast(t(outcomeKey(outcome)), 3500);
    verify.submit({ intent: "verify", response: JSON.stringify(outcome.response), path }, { method: "post", action: ACTION });
  });
  const busy = options.state !== "idle" || verify.state !== "idle";
  return (
    <button
      type="button"
      className="btn btn-plain btn-block passkey-sign-in"
      disabled={busy}
      data-testid="passkey-sign-in"
      onClick={() => options.submit({ intent: "options" }, { method: "post", action: ACTION })}
    >
      <KeyIcon size={18} />
      <span className="passkey-sign-in-text">{t("passkey_sign_in")}</span>
    </button>
  );
}

const ACTION = "/pages/user/passkey-login";

export function outcomeKey(outcome: PasskeyOutcome<unknown>): string {
  return outcome.status === "unsupported" ? "passkey_unsupported" : outcome.status === "cancelled" ? "passkey_cancelled" : "passkey_failed";
}
