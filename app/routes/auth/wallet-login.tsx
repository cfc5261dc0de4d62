import type { ActionFunctionArgs, LinksFunction } from "@remix-run/cloudflare";
import { useFetcher, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../../components/code-field";
import { AppLink, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import type { UserInfo } from "../../lib/types";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { loadOrCreateDeviceKey, storedDeviceKey, type DeviceKey } from "../../lib/wallet-device-key";
import { chooseWallet, discoverWallets, requestEthAddress, signWithWallet, type DiscoveredWallet } from "../../lib/wallet-discovery";
import { challengeFor, errorText, fetchNonce, type SignedChallenge } from "../../lib/wallet-sign-in";
import walletStyles from "../../styles/wallet-login.css";
import { signedIn } from "./login";
export { loader } from "./login";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: walletStyles }];

/** The signed challenge goes through the API in-process; the session cookie is set as for password login. */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (name: string) => String(form.get(name) ?? "");
  const res = await api<{ userinfo: UserInfo & { token: string } }>(context, request, "/api/user/loginByAddr", {
    account: field("account"),
    message: field("message"),
    signature: field("signature"),
    type: field("type"),
    // The second step for an account with two-factor on: the same signed challenge and a code.
    ...(form.has("code") ? { code: field("code") } : {}),
  });
  if (res.code !== 1) return res;
  return signedIn(request, res.data.userinfo, field("path"));
}

/** The wallet failures stay up a little longer than the app's 2 s toasts: they carry a reason. */
const TOAST_MS = 3500;

export default function WalletLogin() {
  const { t, i18n } = useTranslation("auth");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope<{ need_2fa?: boolean }>>();
  const [params] = useSearchParams();
  useEnvelope(fetcher.data);
  // The last signed challenge: with two-factor on it goes again, with the code.
  const [signedLast, setSignedLast] = useState<SignedChallenge | null>(null);
  const [needCode, setNeedCode] = useState(false);
  useEffect(() => {
    if (fetcher.data?.data?.need_2fa) setNeedCode(true);
  }, [fetcher.data]);
  const [wallets, setWallets] = useState<DiscoveredWallet[] | null>(null);
  const [device, setDevice] = useState<DeviceKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [wif, setWif] = useState<string | null>(null);
  const { t: tc } = useTranslation();
  const toast = (key: string, error?: unknown) => ui.toast(t(key, error === undefined ? {} : { error: errorText(error) }), TOAST_MS);
  // fetch rejects with a TypeError when the network fails: the app's 'error' toast, as elsewhere.
  const failed = (err: unknown) => ui.toast(err instanceof TypeError ? tc("toast_error") : errorText(err), TOAST_MS);

  /** No wallet: a device key takes its place; neither: say both failed. */
  async function noWallet() {
    try {
      setDevice(await loadOrCreateDeviceKey());
      toast("toast_metamask_missing");
    } catch {
      toast("toast_both_failed");
    }
  }

  async function discover() {
    const found = await discoverWallets();
    setWallets(found);
    const choice = chooseWallet(found);
    if (choice.status === "none") return noWallet();
    setDevice(await storedDeviceKey());
    if (choice.status === "choose") toast("toast_metamask_not_selected");
    return choice;
  }

  // Discovery runs once per visit; "Connect wallet" runs it again.
  useEffect(() => {
    void discover();
  }, []);

  const submit = (signed: SignedChallenge) => {
    setSignedLast(signed);
    setNeedCode(false);
    fetcher.submit({ ...signed, path: params.get("path") ?? "" }, { method: "post" });
  };

  async function connect() {
    const choice = await discover();
    if (choice?.status === "one") await withWallet(choice.wallet);
  }

  async function withWallet(wallet: DiscoveredWallet) {
    setBusy(true);
    try {
      const address = await requestEthAddress(wallet.provider).catch((err) => {
        toast("toast_eth_failed", err);
        return null;
      });
      if (!address) return;
      const message = challengeFor("eth", address, await fetchNonce(i18n.language), t("wallet_statement"));
      submit({ account: address, message, signature: await signWithWallet(wallet.provider, address, message), type: "eth" });
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  }

  async function withDeviceKey() {
    let key: DeviceKey;
    try {
      key = await loadOrCreateDeviceKey();
      setDevice(key);
    } catch (err) {
      return toast("toast_btc_failed", err);
    }
    setBusy(true);
    try {
      const message = challengeFor("btc", key.address, await fetchNonce(i18n.language), t("wallet_statement"));
      submit({ account: key.address, message, signature: await key.sign(message), type: "btc" });
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  }

  async function exportKey() {
    if (!device || !(await ui.confirm(t("device_key_export_confirm")))) return;
    // The key is unsealed for this one export (device-key-vault.ts).
    await device.exportWif().then(setWif, failed);
  }

  const disabled = busy || fetcher.state !== "idle";
  const path = params.get("path");
  return (
    <Screen title={t("wallet_title")}>
      <div className="auth wallet-login">
        <div className="auth-brand">
          <img src="/favicon.svg" alt="" width="56" height="56" />
          <p className="auth-tagline">{t("wallet_intro")}</p>
        </div>
        {needCode && signedLast ? (
          <fetcher.Form method="post" className="card form" noValidate>
            <p className="muted" data-testid="two-factor-prompt">
              {t("wallet_two_factor_prompt")}
            </p>
            {Object.entries({ ...signedLast, path: params.get("path") ?? "" }).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <CodeField autoFocus />
            <button type="submit" className="btn btn-primary btn-block" disabled={disabled}>
              {t("two_factor_submit")}
            </button>
          </fetcher.Form>
        ) : null}
        <section className="card">
          {wallets && wallets.length > 0 ? (
            <>
              {wallets.length > 1 ? <p className="card-title">{t("wallet_choose")}</p> : null}
              {wallets.map((w) => (
                <button key={w.info.uuid} type="button" className="btn btn-primary btn-block" disabled={disabled} onClick={() => withWallet(w)}>
                  {w.info.icon ? <img src={w.info.icon} alt="" /> : null}
                  {t("wallet_use", { name: w.info.name })}
                </button>
              ))}
            </>
          ) : (
            <button type="button" className="btn btn-primary btn-block" disabled={disabled || wallets === null} onClick={connect}>
              {t("wallet_connect")}
            </button>
          )}
        </section>
        <section className="card" aria-labelledby="device-key-title">
          <p className="card-title" id="device-key-title">{t("device_key_title")}</p>
          <p className="wallet-warning" role="note">{t("device_key_warning")}</p>
          {device ? (
            <p className="wallet-address">
              {t("device_key_address")}
              <code data-testid="device-address">{device.address}</code>
            </p>
          ) : null}
          <button type="button" className="btn btn-plain btn-block" disabled={disabled} onClick={withDeviceKey}>
            {t("device_key_use")}
          </button>
          {device ? (
            <button type="button" className="btn btn-plain btn-block" onClick={exportKey}>
              {t("device_key_export")}
            </button>
          ) : null}
          {wif ? (
            <div>
              <p className="muted">{t("device_key_export_hint")}</p>
              <code className="wallet-wif" data-testid="device-wif">{wif}</code>
            </div>
          ) : null}
        </section>
        <p className="auth-switch">
          <AppLink to={`/pages/user/login${path ? `?path=${encodeURIComponent(path)}` : ""}`}>{t("go_password_login")}</AppLink>
        </p>
      </div>
    </Screen>
  );
}
