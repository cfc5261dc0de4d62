/**
 * Every page URL and the module that serves it, in one list (remix.config.js `routes`; Remix's
 * file-name convention is off). URLs are the app's established paths and never change; module
 * files are named by what the page does, so "bank cards" is `routes/me/bank-cards.tsx` even
 * though its URL is `/pages/me/sub/kabaw`. To add a page: create the module, add one line here.
 *
 * Plain JavaScript because Node loads remix.config.js (and this file) without a TypeScript step.
 */

/** @param {import("@remix-run/dev/dist/config/routes").DefineRouteFunction} route */
function userPages(route) {
  // Wallet home (tab 0): balance summary, banners, quick entries, contacts.
  route(undefined, "routes/home/wallet-home.tsx", { index: true }); // /
  route("pages/index/index", "routes/home/wallet-home-alias.tsx"); // /pages/index/index: the same home under its old path
  // The old shell's other paths, redirected (routes/aliases/old-shell-paths.ts, docs/decisions/062).
  route("pages/wallet/index", "routes/aliases/old-shell-paths.ts", { id: "aliases/wallet" }); // 301 → /
  route("pages/index/template", "routes/aliases/old-shell-paths.ts", { id: "aliases/template" }); // 301 → /
  route("pages/rob/index", "routes/aliases/old-shell-paths.ts", { id: "aliases/rob" }); // 301 → /pages/money/index (trade tab)
  route("pages/team/index", "routes/aliases/old-shell-paths.ts", { id: "aliases/team" }); // 301 → /pages/me/index (me tab)
  route("choose-location", "routes/aliases/old-shell-paths.ts", { id: "aliases/choose-location" }); // 302 → / (no location in this product)
  route("open-location", "routes/aliases/old-shell-paths.ts", { id: "aliases/open-location" }); // 302 → /

  // Sign-in (open without a session: app/lib/guard.ts).
  route("pages/user/login", "routes/auth/login.tsx"); // account login, returns to ?path=
  route("pages/user/login2", "routes/auth/wallet-login.tsx"); // wallet login: Sign-In with Ethereum, or a Bitcoin key kept on this device
  route("pages/user/register", "routes/auth/register.tsx"); // registration with an invitation code
  route("pages/user/forgot", "routes/auth/forgot-password.tsx"); // forgot password: account or verified email, the mailed 6-digit code, a new password (decision 138)
  route("pages/user/passkey-login", "routes/auth/passkey-login.ts"); // resource route (action only) behind the login page's "Sign in with a passkey": challenge, then the answer

  // Trade (tab 1) and markets (tab 2).
  route("pages/money/index", "routes/trade/trade.tsx"); // trade tab: product, chart, order sheet, open and settled orders
  route("pages/money/order", "routes/trade/order-detail.tsx"); // one order and the ticks that settled it (?id=)
  route("pages/invest/index", "routes/markets/markets.tsx"); // markets tab: every product's latest price, live
  route("pages/invest/product", "routes/markets/product.tsx"); // one market: quote, candles, Buy up / Buy down (?id=)

  // Me (tab 3): account, settings.
  route("pages/me/index", "routes/me/account.tsx"); // me tab: who you are, invitation code, links to every setting
  route("pages/me/sub/setting", "routes/me/settings.tsx"); // language and logout
  route("pages/me/sub/modify-pwd", "routes/me/change-password.tsx"); // change the login password
  route("pages/me/sub/security", "routes/me/security.tsx"); // two-factor sign-in: state, enrolment (QR, key, one code), recovery codes once, turning it off
  route("pages/me/sub/about", "routes/me/about.tsx");
  route("pages/me/sub/liabilities", "routes/me/liabilities.tsx"); // proof of liabilities: the user's entry in the latest snapshot, checked in the browser // about the platform, app version
  route("pages/me/sub/devices", "routes/me/devices.tsx"); // signed-in sessions (this device, end one, end all others) and the last 50 sign-in attempts
  route("pages/me/sub/passkeys", "routes/me/passkeys.tsx"); // passkeys: add, rename, remove
  route("pages/me/sub/service", "routes/me/service.tsx"); // customer-service chat, open without login (a guest's conversation follows them into their account)
  route("pages/me/sub/improve-info", "routes/me/profile.tsx"); // profile completion: name, phone, email, ID photo, drawn signature; review status
  route("pages/me/sub/notifications", "routes/me/notifications.tsx"); // notification centre: deposits, withdrawals, settled orders, sign-ins, limits, operator replies; alerts on this device (Web Push) per kind

  // Me: money in and out.
  route("pages/me/sub/stored", "routes/me/recharge-crypto.tsx"); // crypto recharge: own deposit address, report with proof
  route("pages/me/sub/stored2", "routes/me/recharge-bank.tsx"); // bank transfer recharge: platform account, report with receipt
  route("pages/me/sub/recharge-record", "routes/me/recharge-records.tsx"); // the user's recharges and their review state
  route("pages/me/sub/draw-money", "routes/me/withdraw.tsx"); // withdraw to a bound address or bank card, fee shown live
  route("pages/me/sub/draw-record", "routes/me/withdrawal-records.tsx"); // the user's withdrawals and where each stands
  route("pages/me/sub/record", "routes/me/statement.tsx"); // ledger statement: every line on the user's accounts
  route("pages/me/sub/trade-detail", "routes/me/statement-detail.tsx"); // one ledger transfer from the statement (?id=)
  route("proof", "routes/proof/proof.tsx"); // the transparency log, public: latest signed checkpoint, history, verifier key, how to check
  route("pages/proof/check", "routes/resources/proof-check.ts"); // what the browser needs to verify one record in the transparency log (?order_id= or ?transfer_id=, &first=)
  route("pages/me/sub/export/:kind", "routes/resources/export-csv.ts"); // CSV download (statement or orders, ?from=&to=): resource route, the token stays server-side
  route("pages/me/sub/limits", "routes/me/limits.tsx"); // responsible trading: own limits, cool-off and self-exclusion

  // Me: where withdrawals go.
  route("pages/me/sub/kabaw", "routes/me/bank-cards.tsx"); // bound bank cards (masked)
  route("pages/me/sub/add-kabaw", "routes/me/bank-card-add.tsx"); // bind a bank card
  route("pages/me/sub/wallet", "routes/me/wallet-addresses.tsx"); // bound USDT (TRC20) withdrawal addresses
  route("pages/me/sub/add-wallet", "routes/me/wallet-address-add.tsx"); // bind a withdrawal address

  // Me: earn.
  route("pages/me/sub/loan", "routes/earn/loan.tsx"); // liquidity pool: products, the calculator (daily reward, maturity, early-redemption table), buy
  route("pages/me/sub/loan-records", "routes/earn/loan-records.tsx"); // the user's pool orders, their state, early redemption
  route("pages/me/sub/machine", "routes/earn/miner.tsx"); // cloud miner: plans, the user's machines, daily outputs

  // Me: promotions.
  route("pages/me/sub/activity", "routes/me/activity.tsx"); // promotions: terms in words, the user's state (not booked, booked, granted, declined), book then chat
}

/** @param {import("@remix-run/dev/dist/config/routes").DefineRouteFunction} route */
function consolePages(route) {
  route("admin/login", "routes/admin/login.tsx"); // /admin/login: operator sign-in (password, then an authenticator code), outside the console layout
  route("admin/enrol", "routes/admin/enrol.tsx"); // /admin/enrol: an operator without an authenticator key sets one up (QR, key, one code) before anything else
  // /admin: the console layout and its operator guard. Its id stays "routes/admin" because
  // app/components/admin/money.tsx reads the operator with useRouteLoaderData("routes/admin").
  route("admin", "routes/admin/layout.tsx", { id: "routes/admin" }, () => {
    route(undefined, "routes/admin/overview.tsx", { index: true }); // /admin: user and session counts; earn figures (locked in the pool, paid today, due in 24 h)
    route("users", "routes/admin/users.tsx", { index: true }); // /admin/users: find a user
    route("users/:id", "routes/admin/user-detail.tsx"); // /admin/users/:id: balances, statement, adjustment proposal
    route("deposits", "routes/admin/deposits.tsx"); // /admin/deposits: verify deposits (four eyes for large ones)
    route("withdrawals", "routes/admin/withdrawals.tsx"); // /admin/withdrawals: the payout queue
    route("profiles", "routes/admin/profiles.tsx"); // /admin/profiles: review profiles, ID photo beside signature; verify or reject with a reason
    route("adjustments", "routes/admin/adjustments.tsx"); // /admin/adjustments: balance corrections, four eyes
    route("ledger", "routes/admin/ledger-check.tsx"); // /admin/ledger: recompute every balance from the transfers
    route("money", "routes/admin/money-settings.tsx"); // /admin/money: deposit channels, platform bank account, withdrawal fees
    route("products", "routes/admin/markets.tsx"); // /admin/products: markets, durations, rates, exposure limits; parameters frozen while orders are open
    route("products/:id", "routes/admin/market-detail.tsx"); // /admin/products/:id: one market's settings and its open exposure, live
    route("promotions", "routes/admin/promotions.tsx"); // /admin/promotions: create and edit (texts per language), open/close (second operator), bookings with the grant panel, bonuses waiting for a second operator
    route("step-up", "routes/admin/step-up.ts"); // /admin/step-up: resource route (action only) behind the code prompt of money actions: confirms the authenticator code again
    route("promotion-panel", "routes/admin/promotion-panel.tsx"); // /admin/promotion-panel?user_id=&promotion_id=: resource route (loader + action) behind <PromotionPanel>
    route("earn", "routes/admin/earn.tsx"); // /admin/earn: pool products and miner plans; terms read-only while anything bought under them runs
    route("content", "routes/admin/content.tsx"); // /admin/content: contacts and banners
    route("audit", "routes/admin/audit-log.tsx"); // /admin/audit: the operator audit log
    route("operations", "routes/admin/operations.tsx"); // /admin/operations: readiness checks, feeds, settlement lag and cron runs, live (read-only)
    route("mailbox", "routes/admin/mailbox.tsx"); // /admin/mailbox: the local outbox of mail and SMS (decision 139); 404 in production
    route("service", "routes/admin/service.tsx"); // /admin/service: customer-service inbox: conversations live, the chat, the customer's profile and balances, canned replies
  });
}

/** @param {import("@remix-run/dev/dist/config/routes").DefineRoutesFunction} defineRoutes */
export function appRoutes(defineRoutes) {
  return defineRoutes((route) => {
    userPages(route);
    consolePages(route);
    route("locales/:lng", "routes/resources/locale-words.ts"); // /locales/:lng: one language's words for the browser (JSON)
  });
}
