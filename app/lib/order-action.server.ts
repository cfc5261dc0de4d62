import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { api } from "./api.server";

/**
 * The action behind the order confirmation sheet (the product page and the trade tab both
 * use it): places the order through the API with the price the user saw and the sheet's
 * idempotency key, and hands the envelope back to the sheet.
 */
export async function orderAction({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  if (field("intent") !== "order") return { status: 400, code: 0 as const, msg: "", data: { error: "malformed" } };
  return api(context, request, "/api/order/addorder", {
    product_id: field("product_id"),
    direction: field("direction"),
    amount: field("amount"),
    seconds: field("seconds"),
    quote_price: field("quote_price"),
    client_order_id: field("client_order_id"),
    terms_version: field("terms_version"),
  });
}
