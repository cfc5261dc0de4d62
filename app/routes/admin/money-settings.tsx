import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { TableWrap } from "../../components/admin/money";
import { useAction } from "../../lib/admin-console";
import { Field } from "../../components/form";
import { Empty } from "../../components/nav";
import { useUi } from "../../components/ui";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import type { ChannelOut, WithdrawalRuleOut } from "../../../worker/api/present";
import { formatBp, formatUsdt, formatUsdtExact, parseAmount } from "../../../worker/domain/money/units";
import { quoteWithdrawal } from "../../../worker/domain/withdrawals/fees";
import { decideProposal, loadProposals } from "../../lib/admin-terms.server";
import { TermsProposals } from "../../components/admin/terms-proposals";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type Channel = ChannelOut;
type Bank = { enabled: boolean; bank: string; holder: string; account: string; branch: string; min_amount: string; min_amount_micro: number };
type Rule = WithdrawalRuleOut;
type MoneyConfig = { channels: Channel[]; bank: Bank; rules: { trc20: Rule; bank: Rule }; four_eyes: { threshold: string; threshold_micro: number }; binding_wait: { hours: number; min_hours: number; max_hours: number } };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [money, promotions, proposals] = await Promise.all([
    adminApiOrLogin<MoneyConfig>(context, request, "/api/admin/money_config"),
    adminApi<{ four_eyes: { threshold: string; threshold_micro: number } }>(context, request, "/api/admin/promotion_config"),
    loadProposals(context, request, "withdrawal"),
  ]);
  return { ...money.data, promotion_four_eyes: promotions.code === 1 ? promotions.data.four_eyes : null, proposals };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const decided = await decideProposal(context, request);
  if (decided) return decided;
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  const { intent, id, channel, ...body } = form;
  if (intent === "channel") {
    if (id && !/^\d{1,15}$/.test(id)) return { status: 400, code: 0 as const, msg: "", data: null };
    return adminApi(context, request, id ? `/api/admin/deposit_channels/${id}` : "/api/admin/deposit_channels", body);
  }
  if (intent === "bank") return adminApi(context, request, "/api/admin/bank_account", body);
  if (intent === "four_eyes") return adminApi(context, request, "/api/admin/deposit_four_eyes", body);
  if (intent === "binding_wait") return adminApi(context, request, "/api/admin/binding_wait", body);
  if (intent === "promotion_four_eyes") return adminApi(context, request, "/api/admin/promotion_four_eyes", body);
  if (intent === "rule" && (channel === "trc20" || channel === "bank")) return adminApi(context, request, `/api/admin/withdrawal_rules/${channel}`, body);
  return { status: 400, code: 0 as const, msg: "", data: null };
}

/** Where users deposit, the platform bank account, and withdrawal fees: every save audited with a reason. */
export default function AdminMoney() {
  const { t } = useTranslation("admin");
  const { t: tp } = useTranslation("promotions");
  const { channels, bank, rules, four_eyes, promotion_four_eyes, binding_wait, proposals } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("money.title")}</h1>
      <p className="muted">{t("money.note")}</p>
      <Channels channels={channels} />
      <h2>{t("money.four_eyes_title")}</h2>
      <p className="muted">{t("money.four_eyes_note")}</p>
      <ConfigForm intent="four_eyes" title={t("money.four_eyes_title")} testId="four-eyes-form">
        <Field key={four_eyes.threshold} label={t("money.four_eyes_threshold")} name="threshold" defaultValue={four_eyes.threshold} inputMode="decimal" required data-testid="four-eyes-threshold" />
      </ConfigForm>
      <h2>{t("money.binding_wait_title")}</h2>
      <p className="muted">{t("money.binding_wait_note", { min: binding_wait.min_hours, max: binding_wait.max_hours })}</p>
      <ConfigForm intent="binding_wait" title={t("money.binding_wait_title")} testId="binding-wait-form">
        <Field key={binding_wait.hours} label={t("money.binding_wait_hours")} name="hours" defaultValue={String(binding_wait.hours)} inputMode="numeric" required data-testid="binding-wait-hours" />
      </ConfigForm>
      {promotion_four_eyes ? (
        <>
          <h2>{tp("money.four_eyes_title")}</h2>
          <p className="muted">{tp("money.four_eyes_note")}</p>
          <ConfigForm intent="promotion_four_eyes" title={tp("money.four_eyes_title")} testId="promotion-four-eyes-form">
            <Field key={promotion_four_eyes.threshold} label={t("money.four_eyes_threshold")} name="threshold" defaultValue={promotion_four_eyes.threshold} inputMode="decimal" required data-testid="promotion-four-eyes-threshold" />
          </ConfigForm>
        </>
      ) : null}
      <h2>{t("money.bank_title")}</h2>
      <p className="muted">{t("money.bank_note")}</p>
      <BankForm bank={bank} />
      <h2>{t("money.rules_title")}</h2>
      <p className="muted">{t("money.rules_note")}</p>
      <TermsProposals proposals={proposals} />
      <div className="rule-grid">
        <RuleForm channel="trc20" rule={rules.trc20} />
        <RuleForm channel="bank" rule={rules.bank} />
      </div>
    </section>
  );
}

/** A form with a fetcher, the intent, a required reason and Save; a success clears the reason. */
function ConfigForm({ intent, hidden, title, testId, children, onSaved, onCancel }: { intent: string; hidden?: Record<string, string | number>; title: ReactNode; testId: string; children: ReactNode; onSaved?: () => void; onCancel?: () => void }) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  const form = useRef<HTMLFormElement>(null);
  const { fetcher, busy } = useAction(() => {
    const reason = form.current?.elements.namedItem("reason") as HTMLInputElement | null;
    if (reason) reason.value = "";
    onSaved?.();
  });
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    if (!String(data.get("reason") ?? "").trim()) {
      ui.toast(t("need_reason"));
      (e.currentTarget.elements.namedItem("reason") as HTMLInputElement | null)?.focus();
      return;
    }
    fetcher.submit(data, { method: "post" });
  }
  return (
    <fetcher.Form method="post" ref={form} className="card form admin-form config-form" onSubmit={onSubmit} noValidate data-testid={testId}>
      <h3 className="card-title">{title}</h3>
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(hidden ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {children}
      <Field label={t("reason")} name="reason" maxLength={500} data-testid="reason-input" required />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="save">
          {t("save")}
        </button>
        {onCancel ? (
          <button type="button" className="btn btn-plain" onClick={onCancel}>
            {t("cancel")}
          </button>
        ) : null}
      </div>
    </fetcher.Form>
  );
}

function Check({ name, label, defaultChecked, testId }: { name: string; label: string; defaultChecked: boolean; testId?: string }) {
  return (
    <label className="check">
      <input type="checkbox" name={name} value="1" defaultChecked={defaultChecked} data-testid={testId} /> {label}
    </label>
  );
}

function Channels({ channels }: { channels: Channel[] }) {
  const { t, i18n } = useTranslation("admin");
  const [editing, setEditing] = useState<number | "new" | null>(null);
  const current = typeof editing === "number" ? channels.find((c) => c.id === editing) : undefined;
  // The API does not return `sort`; the list comes ordered by it, so the position keeps the order.
  const sortOf = (c: Channel) => c.sort ?? channels.indexOf(c);
  return (
    <>
      <div className="page-head">
        <h2>{t("money.channels_title")}</h2>
        <button type="button" className="btn btn-sm btn-plain" onClick={() => setEditing("new")} data-testid="add-channel">
          + {t("money.channel_add")}
        </button>
      </div>
      <p className="muted">{t("money.channels_note")}</p>
      {channels.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table" data-testid="channels-table">
            <thead>
              <tr>
                <th>{t("col.id")}</th>
                <th>{t("money.currency")}</th>
                <th>{t("money.chain")}</th>
                <th>{t("money.xpub")}</th>
                <th className="num">{t("money.minimum")}</th>
                <th>{t("money.enabled")}</th>
                <th className="num">{t("money.order")}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {channels.map((c) => (
                <tr key={c.id} data-testid="channel-row" data-id={c.id} className={editing === c.id ? "row-selected" : undefined}>
                  <td>#{c.id}</td>
                  <td>{c.currency}</td>
                  <td>{c.chain}</td>
                  <td className="wrap-cell">
                    {c.xpub ? (
                      <code className="mono" title={c.xpub}>
                        {`${c.xpub.slice(0, 12)}…${c.xpub.slice(-8)}`}
                      </code>
                    ) : (
                      <span className="pill pill-cancelled">{t("money.xpub_missing")}</span>
                    )}
                  </td>
                  <td className="num">{formatUsdt(c.min_amount_micro, i18n.language)}</td>
                  <td>{c.enabled ? <span className="pill pill-approved">{t("money.on")}</span> : <span className="pill pill-cancelled">{t("money.off")}</span>}</td>
                  <td className="num">{sortOf(c)}</td>
                  <td className="num">
                    <button type="button" className="btn btn-sm btn-plain" onClick={() => setEditing(c.id)} data-testid="edit-channel">
                      {t("edit")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {editing !== null ? (
        <ConfigForm
          key={editing}
          intent="channel"
          hidden={current ? { id: current.id } : undefined}
          title={current ? t("money.channel_edit", { id: current.id }) : t("money.channel_add")}
          testId="channel-form"
          onSaved={() => setEditing(null)}
          onCancel={() => setEditing(null)}
        >
          <div className="form-grid">
            <Field label={t("money.currency")} name="currency" defaultValue={current?.currency ?? "USDT"} maxLength={10} required />
            <Field label={t("money.chain")} name="chain" defaultValue={current?.chain ?? ""} placeholder="TRC20" maxLength={20} required />
          </div>
          <input type="hidden" name="address" value={current?.address ?? ""} />
          <Field label={t("money.xpub")} name="xpub" defaultValue={current?.xpub ?? ""} maxLength={200} spellCheck={false} autoComplete="off" hint={t("money.xpub_hint")} data-testid="channel-xpub" />
          <div className="form-grid">
            <Field label={t("money.minimum_usdt")} name="min_amount" defaultValue={current?.min_amount ?? ""} inputMode="decimal" placeholder="10.00" required />
            <Field label={t("money.order")} name="sort" type="number" min={0} max={1000} defaultValue={current ? sortOf(current) : channels.length} hint={t("money.order_hint")} />
          </div>
          <Check name="enabled" label={t("money.enabled_channel")} defaultChecked={current?.enabled ?? true} />
        </ConfigForm>
      ) : null}
    </>
  );
}

function BankForm({ bank }: { bank: Bank }) {
  const { t } = useTranslation("admin");
  return (
    <ConfigForm intent="bank" title={t("money.bank_form")} testId="bank-form">
      <fieldset className="plain-fieldset" key={JSON.stringify(bank)}>
        <Check name="enabled" label={t("money.bank_enabled")} defaultChecked={bank.enabled} />
        <div className="form-grid">
          <Field label={t("money.bank_name")} name="bank" defaultValue={bank.bank} maxLength={100} />
          <Field label={t("money.bank_holder")} name="holder" defaultValue={bank.holder} maxLength={100} />
          <Field label={t("money.bank_account")} name="account" defaultValue={bank.account} maxLength={64} />
          <Field label={t("money.bank_branch")} name="branch" defaultValue={bank.branch} maxLength={100} />
        </div>
        <Field label={t("money.minimum_usdt")} name="min_amount" defaultValue={bank.min_amount} inputMode="decimal" required hint={t("money.bank_min_hint")} />
      </fieldset>
    </ConfigForm>
  );
}

/** A typed amount in micro-USDT; "0" counts (a rule may have no fixed fee), bad text is null. */
function typedMicro(text: string): number | null {
  const r = parseAmount(text);
  return r.status === "ok" ? r.amount_micro : r.status === "not_positive" ? 0 : null;
}

/** The fee the server would charge on an example amount under the rule as typed (null: not a rule yet). */
function examplePreview(bp: number | null, fixed: number | null, example: number) {
  if (bp === null || bp > 10_000 || fixed === null) return null;
  return quoteWithdrawal({ fee_fixed_micro: fixed, fee_rate_bp: bp, min_amount_micro: 0, enabled: true }, example);
}

function RuleForm({ channel, rule }: { channel: "trc20" | "bank"; rule: Rule }) {
  const { t, i18n } = useTranslation("admin");
  const lng = i18n.language;
  const [bp, setBp] = useState(String(rule.fee_rate_bp));
  const [fixed, setFixed] = useState(rule.fee_fixed);
  const [min, setMin] = useState(rule.min_amount);
  const bpNumber = /^\d{1,5}$/.test(bp.trim()) ? Number(bp.trim()) : null;
  const example = Math.max(100_000_000, typedMicro(min) ?? 0);
  const quote = examplePreview(bpNumber, typedMicro(fixed), example);
  return (
    <ConfigForm intent="rule" hidden={{ channel }} title={t(`withdrawals.channel_${channel}`)} testId={`rule-form-${channel}`}>
      <fieldset className="plain-fieldset" key={JSON.stringify(rule)}>
        <Check name="enabled" label={t("money.rule_enabled")} defaultChecked={rule.enabled} />
        <Field label={t("money.fee_fixed")} name="fee_fixed" value={fixed} onChange={(e) => setFixed(e.target.value)} inputMode="decimal" hint={t("money.fee_fixed_hint")} data-testid="fee-fixed" />
        <Field
          label={t("money.fee_rate")}
          name="fee_rate_bp"
          type="number"
          min={0}
          max={10000}
          step={1}
          value={bp}
          onChange={(e) => setBp(e.target.value)}
          hint={bpNumber !== null && bpNumber <= 10_000 ? t("money.fee_rate_hint", { percent: formatBp(bpNumber, lng, { percent: true }) }) : t("money.fee_rate_invalid")}
          data-testid="fee-rate"
        />
        <Field label={t("money.minimum_usdt")} name="min_amount" value={min} onChange={(e) => setMin(e.target.value)} inputMode="decimal" data-testid="min-amount" />
        <p className="example" data-testid="fee-example">
          {quote?.status === "ok"
            ? t("money.fee_example", { amount: formatUsdt(example, lng), fee: formatUsdtExact(quote.fee_micro, lng), actual: formatUsdtExact(quote.actual_micro, lng) })
            : quote !== null
              ? t("money.fee_example_all", { amount: formatUsdt(example, lng) })
              : t("money.fee_example_na")}
        </p>
      </fieldset>
    </ConfigForm>
  );
}
