/**
 * Demo data for local runs, written through the same domain code the API uses. Safe to run
 * again: everything it creates is looked up first. Never part of a deploy.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../worker/db/client";
import { operators, slides, users } from "../worker/db/schema";
import { createSlide, seedContacts } from "../worker/domain/content/site";
import { createOperator } from "../worker/domain/identity/operators";
import { ensurePlatformInviteCode, registerUser } from "../worker/domain/identity/users";

export const DEMO = {
  invite_code: "WELCOME",
  user: { account: "demo", password: "demo12345" },
  operator: { account: "operator", password: "operator12345" },
} as const;

export async function seedDemo(db: Db, now_ms = Date.now()): Promise<string[]> {
  const done: string[] = [];
  await ensurePlatformInviteCode(db, DEMO.invite_code, now_ms);

  if (!(await db.query.users.findFirst({ where: eq(users.account, DEMO.user.account) }))) {
    const r = await registerUser(db, { ...DEMO.user, invite_code: DEMO.invite_code, lang: null }, now_ms);
    if (r.status !== "ok") throw new Error(`seed: demo user: ${r.status}`);
    done.push("user demo");
  }
  if (!(await db.query.operators.findFirst({ where: eq(operators.account, DEMO.operator.account) }))) {
    const r = await createOperator(db, DEMO.operator, now_ms);
    if (r.status !== "ok") throw new Error(`seed: operator: ${r.status}`);
    done.push("operator");
  }
  await seedContacts(db, { wechat: "proofline_support", mobile: "+1 555 0100", email: "support@proofline.example", hours: "09:00–21:00 UTC" }, now_ms);
  if ((await db.select({ id: slides.id }).from(slides).limit(1)).length === 0) {
    const banners = [
      { title: "Prices you can verify", image_url: "/banners/1.svg", link: "/pages/me/sub/about" },
      { title: "Every balance is a ledger", image_url: "/banners/2.svg", link: "/pages/me/sub/about" },
      { title: "Invite friends", image_url: "/banners/3.svg", link: "/pages/me/index" },
    ];
    for (const [i, b] of banners.entries()) await createSlide(db, null, { ...b, sort: i, enabled: true }, "demo seed", now_ms);
    done.push("banners");
  }
  return done;
}
