import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AppLink, Screen } from "../../components/nav";
import { apiOrLogin } from "../../lib/api.server";
export { shouldRevalidate } from "../../lib/revalidate";

type About = { title: string; intro: string; sections: { title: string; body: string }[] };

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await apiOrLogin<About>(context, request, "/api/index/about")).data;
}

export const APP_VERSION = "0.1.0";

export default function AboutPage() {
  const { t } = useTranslation("me");
  const { t: tt } = useTranslation("trade");
  const about = useLoaderData<typeof loader>();
  return (
    <Screen title={about.title} back>
      <section className="card prose">
        <p className="lead">{about.intro}</p>
        {about.sections.map((s) => (
          <div key={s.title}>
            <h2>{s.title}</h2>
            <p>{s.body}</p>
          </div>
        ))}
        <p>
          <AppLink to="/proof">{tt("proof_page.title")}</AppLink>
        </p>
        <p className="muted">{t("version", { version: APP_VERSION })}</p>
      </section>
    </Screen>
  );
}
