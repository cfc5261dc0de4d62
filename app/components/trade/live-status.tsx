import { useTranslation } from "react-i18next";
import { useQuoteConnection } from "../../lib/quotes";

/**
 * Said when a symbol's live prices stopped (a dropped connection, or a busy hub refusing new
 * sockets): the price shown is the last one received, and the page is getting back on its own.
 */
export function LiveStatus({ symbol }: { symbol: string }) {
  const { t } = useTranslation("trade");
  const connection = useQuoteConnection(symbol);
  if (connection !== "reconnecting") return null;
  return (
    <p className="t-live-status" role="status" data-testid="live-reconnecting">
      {t("live.reconnecting")}
    </p>
  );
}
