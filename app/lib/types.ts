/** Shapes the pages read from the API (mirrors worker/api/resources/*). */
export type UserInfo = {
  id: number;
  account: string;
  invite_code: string;
  invited_with_code: string;
  lang: string | null;
  created_at_ms: number;
  password_changed_at_ms: number;
  /** Ledger balances in micro-USDT: available, locked (trade, pool, withdrawal) and their sum. */
  balance_micro: number;
  locked_micro: number;
  total_micro: number;
};

export type Slide = { id: number; title: string; image: string; link: string };
export type Contacts = { wechat: string; mobile: string; email: string; hours: string };
