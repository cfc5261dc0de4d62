import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Home-page banners (`/api/index/slides`). */
export const slides = sqliteTable(
  "slides",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    title: text("title").notNull(),
    image_url: text("image_url").notNull(),
    link: text("link").notNull().default(""),
    sort: integer("sort").notNull().default(0),
    enabled: integer("enabled").notNull().default(1),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [index("slides_sort_idx").on(t.enabled, t.sort)],
);

/** Small operator-editable settings such as the customer-service contacts. */
export const app_config = sqliteTable("app_config", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updated_at_ms: integer("updated_at_ms").notNull(),
});
