import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Field, missingFields, useFieldGuard } from "../../components/form";
import { ImageUpload } from "../../components/money/image-upload";
import { OneTimeCodeField } from "../../components/one-time-code-field";
import { Screen } from "../../components/nav";
import { SignatureField, type SignatureHandle } from "../../components/profile/signature-field";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { forwardUpload } from "../../lib/recharge-action.server";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { checkEmail, checkName, checkPhone } from "../../../worker/domain/profiles/rules";
import moneyStyles from "../../styles/money.css";
import profileStyles from "../../styles/profile.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: moneyStyles },
  { rel: "stylesheet", href: profileStyles },
];

export type ProfileView = {
  name: string;
  phone: string;
  email: string;
  id_photo: string;
  signature: string;
  status: "incomplete" | "submitted" | "verified" | "rejected";
  reject_reason: string;
  /** Proven by a code sent to it (decision 138). */
  email_verified: boolean;
  phone_verified: boolean;
};

const EMPTY: ProfileView = { name: "", phone: "", email: "", id_photo: "", signature: "", status: "incomplete", reject_reason: "", email_verified: false, phone_verified: false };
const FIELDS = ["name", "phone", "email", "id_photo", "signature"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<ProfileView>(context, request, "/api/user/cxinfos");
  return { profile: res.code === 1 ? res.data : EMPTY };
}

/**
 * `intent=upload` forwards a picture (the ID photo or the signature PNG); `contact_send` and
 * `contact_confirm` verify the email or phone by a code; anything else saves.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  if (form.get("intent") === "upload") return forwardUpload(context, request, form);
  const channel = String(form.get("channel") ?? "");
  if (form.get("intent") === "contact_send") return api(context, request, "/api/user/contact/send", { channel });
  if (form.get("intent") === "contact_confirm") return api(context, request, "/api/user/contact/confirm", { channel, code: String(form.get("code") ?? "") });
  return api(context, request, "/api/user/infos", Object.fromEntries(FIELDS.map((f) => [f, String(form.get(f) ?? "")])));
}

/** Profile completion: who you are, a photo of your ID and a drawn signature, sent for review. */
export default function ImproveInfo() {
  const { t } = useTranslation("me");
  const { profile } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("profile.title")} back>
      <StatusCard profile={profile} />
      {profile.status !== "incomplete" ? <Contacts profile={profile} /> : null}
      {profile.status === "verified" ? <ReadOnly profile={profile} /> : <ProfileForm profile={profile} />}
    </Screen>
  );
}

function StatusCard({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation("me");
  return (
    <section className="card profile-status" aria-label={t("profile.status")}>
      <span className="profile-status-pill" data-status={profile.status} data-testid="profile-status">
        {t(`profile.status_${profile.status}`)}
      </span>
      <p className="muted" data-testid="profile-status-note">
        {t(`profile.note_${profile.status}`)}
      </p>
      {profile.status === "rejected" && profile.reject_reason ? (
        <p className="profile-reason" data-testid="profile-reject-reason">
          {t("profile.reason")}: {profile.reject_reason}
        </p>
      ) : null}
    </section>
  );
}

/** The saved email and phone, each verified or with a way to verify it (decision 138). */
function Contacts({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation("me");
  return (
    <section className="card contacts" aria-label={t("profile.verify")} data-testid="profile-contacts">
      <ContactVerify channel="email" address={profile.email} verified={profile.email_verified} />
      <ContactVerify channel="phone" address={profile.phone} verified={profile.phone_verified} />
      <p className="muted field-hint">{t("profile.verify_why")}</p>
    </section>
  );
}

type Sent = { retry_after: number; expires_in: number };

function ContactVerify({ channel, address, verified }: { channel: "email" | "phone"; address: string; verified: boolean }) {
  const { t } = useTranslation("me");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const guardFields = useFieldGuard();
  const send = useGuardedFetcher<PageEnvelope<Sent & { retry_after?: number }>>();
  const confirm = useFetcher<PageEnvelope>();
  const [open, setOpen] = useState(false);
  const [sent, setSent] = useState<{ retry_after: number; at: number } | null>(null);
  useEnvelope(send.data, (_data, msg) => ui.toast(msg));
  // A refused resend (429) still carries the server's wait: the countdown follows it.
  useEffect(() => {
    const retry_after = send.data?.data?.retry_after;
    if (typeof retry_after === "number") setSent({ retry_after, at: Date.now() });
  }, [send.data]);
  useEnvelope(confirm.data, (_data, msg) => {
    ui.toast(msg);
    setOpen(false);
    setSent(null);
  });
  const ask = () => send.submit({ intent: "contact_send", channel }, { method: "post" });
  return (
    <div className="contact" data-testid={`contact-${channel}`}>
      <div className="row">
        <span>
          {t(`profile.${channel}`)}: {address}
        </span>
        {verified ? (
          <span className="profile-status-pill" data-status="verified" data-testid={`contact-${channel}-verified`}>
            {t("profile.verified")}
          </span>
        ) : (
          <span className="profile-status-pill" data-status="incomplete">
            {t("profile.unverified")}
          </span>
        )}
      </div>
      {verified ? null : !open ? (
        <button type="button" className="btn btn-sm btn-plain" onClick={() => setOpen(true)} data-testid={`verify-${channel}`}>
          {t("profile.verify")}
        </button>
      ) : (
        <div className="form" data-testid={`verify-${channel}-panel`}>
          <p className="muted">{t(channel === "email" ? "profile.verify_note_email" : "profile.verify_note_phone", { address })}</p>
          {sent === null ? (
            <button type="button" className="btn btn-primary btn-block" onClick={ask} disabled={send.state !== "idle"} data-testid={`verify-${channel}-send`}>
              {t("profile.verify_send")}
            </button>
          ) : (
            <confirm.Form
              method="post"
              className="form"
              noValidate
              onSubmit={guardFields(["code"])}
            >
              <input type="hidden" name="intent" value="contact_confirm" />
              <input type="hidden" name="channel" value={channel} />
              <OneTimeCodeField retryAfter={sent.retry_after} sentAt={sent.at} onResend={ask} resending={send.state !== "idle"} autoFocus />
              <button type="submit" className="btn btn-primary btn-block" disabled={confirm.state !== "idle"} data-testid={`verify-${channel}-submit`}>
                {t("profile.verify_submit")}
              </button>
            </confirm.Form>
          )}
        </div>
      )}
    </div>
  );
}

/** A verified profile: shown, no longer editable. */
function ReadOnly({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation("me");
  return (
    <section className="card">
      <dl className="rows">
        {(["name", "phone", "email"] as const).map((f) => (
          <div className="row" key={f}>
            <dt>{t(`profile.${f}`)}</dt>
            <dd data-testid={`profile-${f}`}>{profile[f]}</dd>
          </div>
        ))}
      </dl>
      <p className="field-label">{t("profile.id_photo")}</p>
      <img src={profile.id_photo} alt={t("profile.id_photo")} className="id-photo-image" data-testid="profile-id-photo" />
      <p className="field-label">{t("profile.signature")}</p>
      <img src={profile.signature} alt={t("profile.signature_alt")} className="signature-image" data-testid="profile-signature-image" />
    </section>
  );
}

/** The first refusal of the same rules the server applies, so a typo is caught before sending. */
function localRefusal(data: FormData): string | null {
  const checks = [checkName(String(data.get("name"))), checkPhone(String(data.get("phone"))), checkEmail(String(data.get("email")))];
  const failed = checks.find((c) => c.status !== "ok");
  return failed ? failed.status : null;
}

/**
 * The form. A new drawing is uploaded first (as a PNG, through the same upload action as the ID
 * photo) and the save follows with its url; an unchanged earlier signature is sent as it is.
 */
function ProfileForm({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation("me");
  const { t: tc } = useTranslation();
  const { t: te } = useTranslation("errors");
  const ui = useUi();
  const save = useFetcher<PageEnvelope<ProfileView>>();
  const sign = useFetcher<PageEnvelope<{ url: string }>>();
  const [idPhoto, setIdPhoto] = useState(profile.id_photo);
  const [redraw, setRedraw] = useState(profile.signature === "");
  const [drawn, setDrawn] = useState(false);
  const pad = useRef<SignatureHandle | null>(null);
  const pending = useRef<FormData | null>(null);
  const busy = save.state !== "idle" || sign.state !== "idle";

  useEnvelope(sign.data, (data) => {
    const body = pending.current;
    pending.current = null;
    if (!body) return;
    body.set("signature", data.url);
    save.submit(body, { method: "post" });
  });
  useEnvelope(save.data, (_data, msg) => {
    ui.toast(msg);
    setRedraw(false);
    setDrawn(false);
  });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    if (missingFields(form, ["name", "phone", "email"])) return ui.toast(tc("incomplete"));
    const data = new FormData(form);
    const refusal = localRefusal(data);
    if (refusal) return ui.toast(te(refusal));
    if (!idPhoto) return ui.toast(t("profile.id_photo_needed"));
    if (!redraw) return save.submit(data, { method: "post" });
    if (!drawn || !pad.current || pad.current.isEmpty()) return ui.toast(t("profile.signature_needed"));
    pending.current = data;
    const upload = new FormData();
    upload.append("intent", "upload");
    upload.append("file", new File([pad.current.toPng()], "signature.png", { type: "image/png" }));
    sign.submit(upload, { method: "post", encType: "multipart/form-data" });
  }

  return (
    <form method="post" className="card form" noValidate onSubmit={onSubmit} data-testid="profile-form">
      <Field label={t("profile.name")} name="name" defaultValue={profile.name} placeholder={t("profile.name_placeholder")} autoComplete="name" maxLength={64} data-testid="profile-name" />
      <Field label={t("profile.phone")} name="phone" type="tel" inputMode="tel" defaultValue={profile.phone} placeholder="+44 20 7946 0958" hint={t("profile.phone_hint")} autoComplete="tel" maxLength={40} data-testid="profile-phone" />
      <Field label={t("profile.email")} name="email" type="email" inputMode="email" defaultValue={profile.email} placeholder="name@example.com" autoComplete="email" maxLength={254} data-testid="profile-email" />
      <div data-testid="profile-id-photo">
        <ImageUpload label={t("profile.id_photo")} hint={t("profile.id_photo_hint")} value={idPhoto} onChange={setIdPhoto} name="id_photo" />
      </div>
      {redraw ? (
        <SignatureField label={t("profile.signature")} hint={t("profile.signature_hint")} handle={pad} onChange={setDrawn} />
      ) : (
        <div className="field">
          <span className="field-label">{t("profile.signature")}</span>
          <input type="hidden" name="signature" value={profile.signature} />
          <img src={profile.signature} alt={t("profile.signature_alt")} className="signature-image" data-testid="profile-signature-image" />
          <button type="button" className="btn btn-sm btn-plain" onClick={() => setRedraw(true)} data-testid="profile-sign-again">
            {t("profile.sign_again")}
          </button>
        </div>
      )}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="profile-submit">
        {profile.status === "rejected" ? t("profile.resubmit") : t("profile.submit")}
      </button>
    </form>
  );
}
