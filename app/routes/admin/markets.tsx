import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EMPTY_PRODUCT, ProductForm, type ProductRow } from "../../components/admin/product-form";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export async function loader({ request, context }: LoaderFunctionArgs) {
  return { products: (await adminApiOrLogin<ProductRow[]>(context, request, "/api/admin/products")).data };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  return adminApi(context, request, "/api/admin/products/save", form);
}

/**
 * Markets: symbols, delivery durations with their profit rates and stake limits, fee rate,
 * price tolerance, trading hours, exposure limit. There is deliberately nothing here about
 * outcomes: they come from the price feed alone. Each market's page shows its open exposure.
 */
export default function AdminProducts() {
  const { t } = useTranslation("admin");
  const { products } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("products.title")}</h1>
      <p className="muted">{t("products.note")}</p>
      {[...products, EMPTY_PRODUCT].map((p) => (
        <ProductForm key={p.id || "new"} product={p} />
      ))}
    </section>
  );
}
