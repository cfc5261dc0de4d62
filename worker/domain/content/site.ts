import { asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config, slides } from "../../db/schema";
import { auditInsert } from "../audit/log";

/** Customer-service contacts shown on the home page (`/api/index/getWechatMobile`). */
export const CONTACT_KEYS = ["wechat", "mobile", "email", "hours"] as const;
export type Contacts = Record<(typeof CONTACT_KEYS)[number], string>;

export async function getContacts(db: Db): Promise<Contacts> {
  const rows = await db
    .select()
    .from(app_config)
    .where(inArray(app_config.key, CONTACT_KEYS.map((k) => `contact.${k}`)));
  const out = { wechat: "", mobile: "", email: "", hours: "" } as Contacts;
  for (const r of rows) out[r.key.slice("contact.".length) as keyof Contacts] = r.value;
  return out;
}

function contactUpserts(db: Db, contacts: Contacts, now_ms: number) {
  return CONTACT_KEYS.map((k) =>
    db
      .insert(app_config)
      .values({ key: `contact.${k}`, value: contacts[k], updated_at_ms: now_ms })
      .onConflictDoUpdate({ target: app_config.key, set: { value: contacts[k], updated_at_ms: now_ms } }),
  );
}

/** Operator change: new values and its audit entry in one batch. */
export async function updateContacts(db: Db, operator_id: number, contacts: Contacts, reason: string, now_ms: number) {
  const before = await getContacts(db);
  const [first, ...rest] = contactUpserts(db, contacts, now_ms);
  await db.batch([first, ...rest, auditInsert(db, { operator_id, action: "config.update", target: "contacts", reason, data: { before, after: contacts } }, now_ms)]);
}

/** Seed-only: sets contacts when none are set yet (no operator, so no audit entry). */
export async function seedContacts(db: Db, contacts: Contacts, now_ms: number) {
  const current = await getContacts(db);
  if (CONTACT_KEYS.some((k) => current[k] !== "")) return;
  const [first, ...rest] = contactUpserts(db, contacts, now_ms);
  await db.batch([first, ...rest]);
}

export type Slide = typeof slides.$inferSelect;

export async function listSlides(db: Db, opts: { only_enabled: boolean }): Promise<Slide[]> {
  return db
    .select()
    .from(slides)
    .where(opts.only_enabled ? eq(slides.enabled, 1) : undefined)
    .orderBy(asc(slides.sort), asc(slides.id));
}

export type SlideInput = { title: string; image_url: string; link: string; sort: number; enabled: boolean };

export async function createSlide(db: Db, operator_id: number | null, input: SlideInput, reason: string, now_ms: number) {
  const insert = db
    .insert(slides)
    .values({ ...input, enabled: input.enabled ? 1 : 0, created_at_ms: now_ms })
    .returning();
  if (operator_id === null) return (await insert)[0];
  const [rows] = await db.batch([insert, auditInsert(db, { operator_id, action: "slide.create", target: input.title, reason, data: input }, now_ms)]);
  return rows[0];
}

export async function updateSlide(db: Db, operator_id: number, id: number, input: SlideInput, reason: string, now_ms: number) {
  const before = await db.query.slides.findFirst({ where: eq(slides.id, id) });
  if (!before) return { status: "not_found" as const };
  await db.batch([
    db.update(slides).set({ ...input, enabled: input.enabled ? 1 : 0 }).where(eq(slides.id, id)),
    auditInsert(db, { operator_id, action: "slide.update", target: `slide:${id}`, reason, data: { before, after: input } }, now_ms),
  ]);
  return { status: "ok" as const };
}
