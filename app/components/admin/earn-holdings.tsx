import { useTranslation } from "react-i18next";
import { TableWrap } from "./money";
import { formatDateTime } from "../../lib/format";
import { formatUsdtExact } from "../../../worker/domain/money/units";

export type PoolHoldingRow = {
  id: number;
  product_name: string | null;
  amount_micro: number;
  days: number;
  days_paid: number;
  daily_rate: string;
  reward_paid_micro: number;
  redeem_amount: string | null;
  status: "pending" | "settled" | "redeemed";
  started_at_ms: number;
  expires_at_ms: number;
};
export type MinerHoldingRow = {
  id: number;
  plan_name: string | null;
  price_micro: number;
  days: number;
  days_paid: number;
  daily_output_micro: number;
  output_micro: number;
  status: "running" | "ended";
  started_at_ms: number;
  ends_at_ms: number;
};

/** A user's pool orders and machines on the console user page: what runs, days paid, paid so far. */
export function EarnHoldings({ pool, miner }: { pool: PoolHoldingRow[]; miner: MinerHoldingRow[] }) {
  const { t, i18n } = useTranslation("admin");
  const lng = i18n.language;
  const usdt = (micro: number) => formatUsdtExact(micro, lng);
  return (
    <section data-testid="user-earn">
      <h2>{t("earn.holdings_title")}</h2>
      {pool.length === 0 && miner.length === 0 ? <p className="muted">{t("earn.holdings_none")}</p> : null}
      {pool.length > 0 ? (
        <TableWrap>
          <table className="table money-table" data-testid="user-earn-pool">
            <caption>{t("earn.holdings_pool")}</caption>
            <thead>
              <tr>
                <th>{t("earn.col_order")}</th>
                <th className="num">{t("earn.col_amount")}</th>
                <th>{t("earn.col_rate")}</th>
                <th>{t("earn.col_days_paid")}</th>
                <th className="num">{t("earn.col_reward")}</th>
                <th>{t("earn.col_status")}</th>
                <th>{t("earn.col_started")}</th>
                <th>{t("earn.col_ends")}</th>
              </tr>
            </thead>
            <tbody>
              {pool.map((o) => (
                <tr key={o.id} data-testid="user-earn-pool-row" data-id={o.id}>
                  <td>
                    #{o.id} <div className="muted">{o.product_name ?? "--"}</div>
                  </td>
                  <td className="num">{usdt(o.amount_micro)}</td>
                  <td>{o.daily_rate} %</td>
                  <td>
                    {o.days_paid} / {o.days}
                  </td>
                  <td className="num">{usdt(o.reward_paid_micro)}</td>
                  <td>
                    {t(`earn.status_${o.status}`)}
                    {o.redeem_amount !== null ? <div className="muted">{t("earn.col_redeem", { amount: o.redeem_amount })}</div> : null}
                  </td>
                  <td className="nowrap">{formatDateTime(o.started_at_ms, lng)}</td>
                  <td className="nowrap">{formatDateTime(o.expires_at_ms, lng)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {miner.length > 0 ? (
        <TableWrap>
          <table className="table money-table" data-testid="user-earn-miner">
            <caption>{t("earn.holdings_miner")}</caption>
            <thead>
              <tr>
                <th>{t("earn.col_machine")}</th>
                <th className="num">{t("earn.col_price")}</th>
                <th className="num">{t("earn.daily_output")}</th>
                <th>{t("earn.col_days_paid")}</th>
                <th className="num">{t("earn.col_output")}</th>
                <th>{t("earn.col_status")}</th>
                <th>{t("earn.col_started")}</th>
                <th>{t("earn.col_ends")}</th>
              </tr>
            </thead>
            <tbody>
              {miner.map((m) => (
                <tr key={m.id} data-testid="user-earn-miner-row" data-id={m.id}>
                  <td>
                    #{m.id} <div className="muted">{m.plan_name ?? "--"}</div>
                  </td>
                  <td className="num">{usdt(m.price_micro)}</td>
                  <td className="num">{usdt(m.daily_output_micro)}</td>
                  <td>
                    {m.days_paid} / {m.days}
                  </td>
                  <td className="num">{usdt(m.output_micro)}</td>
                  <td>{t(`earn.status_${m.status}`)}</td>
                  <td className="nowrap">{formatDateTime(m.started_at_ms, lng)}</td>
                  <td className="nowrap">{formatDateTime(m.ends_at_ms, lng)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </section>
  );
}
