import { useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { REQUEST_TIMEOUT_MS } from "../../lib/client-defaults";

/** A navigation still unfinished after the client's request limit has failed for the user (the mask shows from 200 ms). */
export const SLOW_NAVIGATION_MS = REQUEST_TIMEOUT_MS;

/**
 * The error view of a navigation that has not finished after a minute: it says so in the
 * user's language and offers a retry, which loads the page it was going to afresh (a full
 * load, so a stuck request is left behind).
 */
export function SlowNavigation() {
  const { t } = useTranslation("shell");
  const navigation = useNavigation();
  const target = navigation.location;
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    setSlow(false);
    if (navigation.state === "idle") return;
    const id = setTimeout(() => setSlow(true), SLOW_NAVIGATION_MS);
    return () => clearTimeout(id);
  }, [navigation.state, target?.key]);
  if (!slow || !target) return null;
  return (
    <div className="slow-view" role="alert" data-testid="slow-navigation">
      <div className="slow-view-card">
        <h2>{t("slow.title")}</h2>
        <p>{t("slow.body")}</p>
        <button type="button" className="btn btn-primary btn-block" onClick={() => window.location.assign(target.pathname + target.search + target.hash)}>
          {t("slow.retry")}
        </button>
      </div>
    </div>
  );
}
