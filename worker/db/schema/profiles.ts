import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A user's completed profile: who they are, an ID photo and a drawn signature (both private
 * uploads). Operators verify or reject it; a rejected one can be corrected and sent again. The
 * loan service needs it submitted or verified before a purchase.
 */
export const profiles = sqliteTable(
  "profiles",
  {
    user_id: integer("user_id").primaryKey(),
    name: text("name").notNull(),
    phone: text("phone").notNull(),
    email: text("email").notNull(),
    /** Upload ids (uploads.id) of the ID photo and the signature PNG. */
    id_photo_id: text("id_photo_id").notNull(),
    signature_id: text("signature_id").notNull(),
    status: text("status", { enum: ["submitted", "verified", "rejected"] }).notNull(),
    reject_reason: text("reject_reason").notNull().default(""),
    submitted_at_ms: integer("submitted_at_ms").notNull(),
    decided_at_ms: integer("decided_at_ms"),
    decided_by: integer("decided_by"),
    /**
     * When the owner proved, with a one-time code, that this email and this phone are theirs
     * (decision 138). NULL until then, and again whenever the address changes: only a verified
     * address receives recovery codes and notices.
     */
    email_verified_at_ms: integer("email_verified_at_ms"),
    phone_verified_at_ms: integer("phone_verified_at_ms"),
  },
  (t) => [index("profiles_status_idx").on(t.status, t.submitted_at_ms), index("profiles_email_idx").on(sql`lower(${t.email})`)],
);
