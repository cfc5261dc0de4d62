/** Shapes the pages read from the API. */
import type { userInfo } from "../../worker/api/resources/user";

/** The signed-in user with ledger balances (micro-USDT and text), declared by the API's `userInfo`. */
export type UserInfo = Omit<ReturnType<typeof userInfo>, "token">;

export type Slide = { id: number; title: string; image: string; link: string };
export type Contacts = { wechat: string; mobile: string; email: string; hours: string };
