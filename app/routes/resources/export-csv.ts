import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { apiDownload } from "../../lib/api.server";

/**
 * A resource route (no page): `/pages/me/sub/export/statement` and `/pages/me/sub/export/orders`
 * with `?from=YYYY-MM-DD&to=YYYY-MM-DD` fetch the CSV from the API with the session cookie's
 * token. A refusal comes back as the API's JSON envelope, which <CsvDownload> shows as a toast.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const kind = params.kind === "orders" ? "orders" : "statement";
  const url = new URL(request.url);
  const query = new URLSearchParams({ from: url.searchParams.get("from") ?? "", to: url.searchParams.get("to") ?? "" });
  return apiDownload(context, request, `/api/user/${kind}.csv?${query}`);
}
