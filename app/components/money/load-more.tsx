import { useLocation, useNavigate, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { PAGE_ROWS, MAX_PAGES } from "../../lib/money";

/**
 * "Load more" under a list: asks the page's loader for one more page of 30 by raising
 * `?pages=n` (replacing the history entry and keeping the scroll position).
 */
export function LoadMore({ pages, total, count }: { pages: number; total: number; count: number }) {
  const { t } = useTranslation("wallet");
  const navigate = useNavigate();
  const location = useLocation();
  const navigation = useNavigation();
  if (count === 0) return null;
  const more = pages * PAGE_ROWS < total && pages < MAX_PAGES;
  if (!more) return <p className="m-list-end">{t("list.end")}</p>;
  const loading = navigation.state === "loading" && navigation.location?.pathname === location.pathname;
  return (
    <button
      type="button"
      className="btn btn-plain btn-block m-load-more"
      data-testid="load-more"
      disabled={loading}
      onClick={() => {
        const params = new URLSearchParams(location.search);
        params.set("pages", String(pages + 1));
        navigate(`${location.pathname}?${params}`, { replace: true, preventScrollReset: true });
      }}
    >
      {loading ? t("list.loading") : t("list.load_more")}
    </button>
  );
}
