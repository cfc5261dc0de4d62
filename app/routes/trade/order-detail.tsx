import { useBackgroundRevalidate } from "../../lib/revalidate";
import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Fragment, useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { Screen } from "../../components/nav";
import { AskServiceButton } from "../../components/service/ask-button";
import { VerifyRecord } from "../../components/proof/verify-record";
import { DirectionTag, Signed, StatusPill, useLocalTime } from "../../components/trade/bits";
import { comparePrices, formatCountdown } from "../../lib/trade-format";
import type { AuditTick, Order } from "../../lib/trade-types";
import { useNow, useServerOffset } from "../../lib/use-now";
import { apiOrLogin } from "../../lib/api.server";
import { formatPrice, formatRate, formatSigned, formatUsdt, formatUsdtExact, parseAmountExact } from "../../../worker/domain/money/units";
import { useRootData } from "../../root";
import serviceStyles from "../../styles/service.css";
import tradeStyles from "../../styles/trade.css";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: tradeStyles },
  { rel: "stylesheet", href: serviceStyles },
];

type OrderInfo = Order & { server_time: number };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  if (!/^\d{1,12}$/.test(id)) throw new Response("Not found", { status: 404 });
  const res = await apiOrLogin<OrderInfo>(context, request, "/api/order/orderinfo", { id });
  if (res.code !== 1) throw new Response(res.msg, { status: 404 });
  return { order: res.data };
}

/**
 * One order: what was bought, how it settled, and the proof: the recorded ticks around entry
 * and around delivery, the two that decided it highlighted, and the rule applied to them.
 */
export default function OrderDetail() {
  const { t } = useTranslation("trade");
  const { order } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const time = useLocalTime(locale);
  const now = useNow(500);
  const offset = useServerOffset(order.server_time);
  const reload = useBackgroundRevalidate();
  const serverNow = now === null ? order.server_time : now + offset;
  const open = order.status === "open";
  const left = order.delivery_at - serverNow;

  // Backstop for the user channel: ask again 1.5 s after delivery, then every 5 s while open.
  const asked = useRef(0);
  useEffect(() => {
    if (!open || now === null) return;
    if (serverNow >= order.delivery_at + 1500 && now - asked.current >= 5000) {
      asked.current = now;
      reload();
    }
  }, [open, now, serverNow, order.delivery_at, reload]);

  const payout = parseAmountExact(order.payout);
  const income = parseAmountExact(order.expected_income);

  return (
    <Screen title={t("detail_title")} back>
      <section className="card t-detail-head">
        <div className="t-order-head">
          <strong className="t-order-symbol">{order.symbol}</strong>
          <DirectionTag direction={order.direction} />
          <StatusPill status={order.status} settling={open && left <= 0} testId="order-status" />
        </div>
        {open ? (
          <div className="t-detail-big">
            <span className="t-muted">{t("countdown")}</span>
            <strong data-testid="countdown" className="t-detail-countdown">
              {left <= 0 ? t("status.settling") : formatCountdown(left)}
            </strong>
          </div>
        ) : (
          <div className="t-detail-big">
            <span className="t-muted">{t("profit")}</span>
            <Signed micro={order.profit_micro} text={`${order.profit_micro === null ? "--" : formatSigned(order.profit_micro, locale)} USDT`} testId="order-profit" />
          </div>
        )}
        <p className="t-explain" data-testid="status-note">
          {t(`status_note.${order.status}`)}
        </p>
        {order.status === "void" ? (
          <p className="t-notice" data-testid="void-reason">
            {t(`void_reason.${order.void_reason || "no_tick"}`, { defaultValue: order.void_reason ?? "" })}
          </p>
        ) : null}
      </section>

      <section className="card">
        <dl className="t-facts">
          <Fact label={t("buy_price")} value={order.entry_price === null ? (open ? t("entry_pending") : "--") : formatPrice(order.entry_price, locale)} testId="fact-entry" />
          <Fact label={t("quote_price")} value={formatPrice(order.quote_price, locale)} />
          <Fact label={t("direction")} value={<DirectionTag direction={order.direction} />} />
          <Fact label={t("quantity")} value={`${formatUsdt(order.amount_micro, locale)} USDT`} testId="fact-amount" />
          <Fact label={t("fee")} value={`${formatUsdtExact(order.fee_micro, locale)} USDT`} />
          <Fact label={t("profit_rate")} value={formatRate(order.profit_rate_bp, locale)} />
          <Fact label={t("purchase_time")} value={time.dateTime(order.created_at)} />
          <Fact label={t("duration")} value={t("seconds", { count: order.seconds })} />
          <Fact label={t("delivery_time")} value={time.dateTime(order.delivery_at)} testId="fact-delivery" />
          <Fact label={t("settlement_price")} value={order.settlement_price ? formatPrice(order.settlement_price, locale) : open ? "--" : t("no_price")} testId="fact-settlement" />
          {open ? (
            <Fact label={t("expected_income")} value={income === null ? "--" : `+${formatUsdtExact(income, locale)} USDT`} />
          ) : (
            <>
              <Fact label={t("payout")} value={payout === null ? "--" : `${formatUsdtExact(payout, locale)} USDT`} testId="fact-payout" />
              <Fact label={t("profit")} value={<Signed micro={order.profit_micro} text={`${order.profit_micro === null ? "--" : formatSigned(order.profit_micro, locale)} USDT`} />} />
              <Fact label={t("settled_at")} value={order.settled_at ? time.dateTime(order.settled_at) : "--"} />
            </>
          )}
          <Fact label={t("status_label")} value={<StatusPill status={order.status} settling={open && left <= 0} />} />
          <Fact label={t("order_no")} value={String(order.id)} />
        </dl>
      </section>

      <section className="card t-audit" aria-labelledby="t-audit-title">
        <h2 id="t-audit-title" className="card-title">
          {t("audit.title")}
        </h2>
        <p className="t-rule-applied" data-testid="order-rule">
          {ruleSentence(order, t, locale, time.clock)}
        </p>
        {order.ticks.length === 0 ? (
          <p className="t-muted">{open ? t("audit.pending") : t("audit.none")}</p>
        ) : (
          <TickTable order={order} locale={locale} precise={time.precise} />
        )}
        <p className="t-muted t-audit-note">{t("audit.note")}</p>
      </section>

      {open ? null : <VerifyRecord kind="order" id={order.id} expected={orderExpected(order)} />}

      {/* A question about this order opens the chat with the order attached for the operator. */}
      <AskServiceButton kind="order" refId={order.id} />
    </Screen>
  );
}

/** What this page shows of a settled order, as its transparency-log leaf must say it. */
function orderExpected(o: Order): Record<string, unknown> {
  return {
    kind: "order",
    id: o.id,
    outcome: o.status,
    direction: o.direction,
    stake_micro: String(o.amount_micro),
    entry: { price: o.entry_price, ts: o.entry_ts },
    exit: o.settlement_price === null ? null : { price: o.settlement_price, ts: o.settlement_ts },
    payout_micro: o.payout_micro === null ? null : String(o.payout_micro),
  };
}

function Fact({ label, value, testId }: { label: string; value: React.ReactNode; testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

type T = ReturnType<typeof useTranslation>["t"];

/** The rule applied, in one sentence: "Settlement 67,012.50 > entry 67,001.00 → Buy up won". */
function ruleSentence(o: Order, t: T, locale: string, clock: (ms: number) => string): string {
  if (o.status === "open") return t("rule_open", { time: clock(o.delivery_at) });
  if (o.status === "void") return t("rule_void");
  const cmp = comparePrices(o.settlement_price, o.entry_price);
  const op = cmp === 1 ? ">" : cmp === -1 ? "<" : "=";
  const outcome = o.status === "tie" ? t("outcome.tie") : t(`outcome.${o.direction}_${o.status}`);
  return t("rule_applied", { settlement: formatPrice(o.settlement_price, locale), entry: formatPrice(o.entry_price, locale), op, outcome });
}

type Row = { kind: "tick"; tick: AuditTick } | { kind: "marker"; label: string; ts: number };

/** The audit ticks in two groups, with the purchase and delivery moments marked between them. */
function TickTable({ order, locale, precise }: { order: Order; locale: string; precise: (ms: number) => string }) {
  const { t } = useTranslation("trade");
  const split = order.created_at + (order.delivery_at - order.created_at) / 2;
  const withMarker = (ticks: AuditTick[], label: string, at: number): Row[] => {
    const rows: Row[] = [];
    let placed = false;
    for (const tick of ticks) {
      if (!placed && tick.ts > at) {
        rows.push({ kind: "marker", label, ts: at });
        placed = true;
      }
      rows.push({ kind: "tick", tick });
    }
    if (!placed) rows.push({ kind: "marker", label, ts: at });
    return rows;
  };
  const groups: { title: string; rows: Row[] }[] = [
    { title: t("audit.around_entry"), rows: withMarker(order.ticks.filter((k) => k.ts <= split), t("audit.purchase_marker"), order.created_at) },
    { title: t("audit.around_delivery"), rows: withMarker(order.ticks.filter((k) => k.ts > split), t("audit.delivery_marker"), order.delivery_at) },
  ];
  return (
    <table className="t-ticks">
      <thead>
        <tr>
          <th scope="col">{t("audit.time")}</th>
          <th scope="col">{t("audit.price")}</th>
          <th scope="col">{t("audit.role")}</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <Fragment key={g.title}>
            <tr className="t-ticks-group">
              <th colSpan={3} scope="colgroup">
                {g.title}
              </th>
            </tr>
            {g.rows.map((r) =>
              r.kind === "marker" ? (
                <tr key={`m${r.ts}`} className="t-ticks-marker">
                  <td>{precise(r.ts)}</td>
                  <td colSpan={2}>{r.label}</td>
                </tr>
              ) : (
                <tr key={r.tick.ts} className={r.tick.used ? `t-tick-used t-tick-${r.tick.role}` : undefined} data-testid="tick-row" data-role={r.tick.role} data-used={r.tick.used ? "true" : "false"}>
                  <td>{precise(r.tick.ts)}</td>
                  <td className="t-tick-price">{formatPrice(r.tick.price, locale)}</td>
                  <td>{r.tick.role === "entry" ? <span className="t-tick-label t-tick-label-entry">{t("audit.entry")}</span> : r.tick.role === "settlement" ? <span className="t-tick-label t-tick-label-settlement">{t("audit.settlement")}</span> : null}</td>
                </tr>
              ),
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
