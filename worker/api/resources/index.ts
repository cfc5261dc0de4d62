/** `/api/index/*`: public site content (the spec's "index" resource). */
import { Hono } from "hono";
import { getContacts, listSlides } from "../../domain/content/site";
import { translate } from "../../i18n";
import { ok } from "../envelope";
import type { AppEnv } from "../types";

async function slidesOf(c: { get(k: "db"): AppEnv["Variables"]["db"] }) {
  const rows = await listSlides(c.get("db"), { only_enabled: true });
  return rows.map((s) => ({ id: s.id, title: s.title, image: s.image_url, link: s.link }));
}

export const indexApi = new Hono<AppEnv>()
  .on(["GET", "POST"], "/getWechatMobile", async (c) => ok(c, await getContacts(c.get("db"))))
  .on(["GET", "POST"], "/slides", async (c) => ok(c, await slidesOf(c)))
  .on(["GET", "POST"], "/home", async (c) => ok(c, { slides: await slidesOf(c), contacts: await getContacts(c.get("db")) }))
  .on(["GET", "POST"], "/about", async (c) => {
    const t = (k: string) => translate(c.get("locale"), `me.${k}`);
    return ok(c, {
      title: t("about_title"),
      intro: t("about_intro"),
      sections: ["ledger", "prices", "rules"].map((s) => ({ title: t(`about_${s}_title`), body: t(`about_${s}_body`) })),
    });
  });
