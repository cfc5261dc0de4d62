import { operatorCookie } from "../../../worker/session-cookie";

export async function operatorCookieFor(token: string) {
  return (await operatorCookie.serialize(token)).split(";")[0];
}
