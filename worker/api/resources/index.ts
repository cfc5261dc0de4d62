/** `/api/index/*`: public site content (the product's "index" resource). */
import { Hono, type Context } from "hono";
import { getContacts, listSlides } from "../../domain/content/site";
import { getBankAccount, type BankAccount } from "../../domain/deposits/bank-account";
import { userDepositAddress } from "../../domain/deposits/address-book";
import { listChannels } from "../../domain/deposits/channels";
import { resolveSession } from "../../domain/identity/session";
import { tokenFrom } from "../middleware/auth";
import { userChannelOut, usdt } from "../present";
import { translate } from "../../i18n";
import { formatAmount, formatPercentText } from "../../domain/money/units";
import { MARKET_BOUNDS, WITHDRAWAL_BOUNDS } from "../../domain/terms/bounds";
import { ok } from "../envelope";
import type { AppEnv } from "../types";

async function slidesOf(c: { get(k: "db"): AppEnv["Variables"]["db"] }) {
  const rows = await listSlides(c.get("db"), { only_enabled: true });
  return rows.map((s) => ({ id: s.id, title: s.title, image: s.image_url, link: s.link }));
}

/** The platform bank account as users see it (nothing when bank transfer is off). */
function bankOut(b: BankAccount) {
  return b.enabled ? { enabled: true, bank: b.bank, holder: b.holder, account: b.account, branch: b.branch, min_amount: usdt(b.min_amount_micro), min_amount_micro: b.min_amount_micro } : { enabled: false };
}

/**
 * The crypto channels a user can pay into. Each user has their own address per channel, so
 * the address comes only with a session (the caller's own); without one, `address` is null
 * and `address_hint` says to sign in. Channels without an xpub have no addresses to give and
 * are not offered.
 */
async function rechargeWays(c: Context<AppEnv>) {
  const db = c.get("db");
  const now = Date.now();
  const session = await resolveSession(db, "user", { token: tokenFrom(c.req.raw.headers) }, now);
  const user = session.status === "ok" ? session.subject : null;
  const channels = (await listChannels(db, { only_enabled: true })).filter((ch) => ch.xpub !== "");
  const hint = translate(c.get("locale"), "errors.sign_in_for_address");
  return Promise.all(
    channels.map(async (ch) => {
      if (!user) return { ...userChannelOut(ch, null), address_hint: hint };
      const own = await userDepositAddress(db, user.id, ch, now);
      return userChannelOut(ch, own.status === "ok" ? own.address : null);
    }),
  );
}

export const indexApi = new Hono<AppEnv>()
  .on(["GET", "POST"], "/getWechatMobile", async (c) => ok(c, await getContacts(c.get("db"))))
  .on(["GET", "POST"], "/slides", async (c) => ok(c, await slidesOf(c)))
  .on(["GET", "POST"], "/home", async (c) => ok(c, { slides: await slidesOf(c), contacts: await getContacts(c.get("db")) }))
  .on(["GET", "POST"], "/recharge_way", async (c) => ok(c, await rechargeWays(c)))
  .on(["GET", "POST"], "/recharge_way1", async (c) => ok(c, bankOut(await getBankAccount(c.get("db")))))
  .on(["GET", "POST"], "/getBA", async (c) => ok(c, bankOut(await getBankAccount(c.get("db")))))
  // The published maxima of every term (decision 121): what no operator can go past.
  .on(["GET", "POST"], "/terms_bounds", (c) => ok(c, { market: MARKET_BOUNDS, withdrawal: WITHDRAWAL_BOUNDS }))
  .on(["GET", "POST"], "/about", async (c) => {
    const t = (k: string, vars = {}) => translate(c.get("locale"), `me.${k}`, vars);
    const pct = (bp: number) => `${formatPercentText(bp)} %`;
    const bounds = {
      payout_min: pct(MARKET_BOUNDS.profit_rate_bp.min),
      payout_max: pct(MARKET_BOUNDS.profit_rate_bp.max),
      fee_max: pct(MARKET_BOUNDS.fee_rate_bp.max),
      wd_fixed_max: formatAmount(WITHDRAWAL_BOUNDS.fee_fixed_micro.max),
      wd_rate_max: pct(WITHDRAWAL_BOUNDS.fee_rate_bp.max),
    };
    return ok(c, {
      title: t("about_title"),
      intro: t("about_intro"),
      sections: ["ledger", "prices", "rules", "terms"].map((s) => ({ title: t(`about_${s}_title`), body: t(`about_${s}_body`, s === "terms" ? bounds : {}) })),
    });
  });
