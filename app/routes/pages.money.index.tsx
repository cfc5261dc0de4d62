import { useTranslation } from "react-i18next";
import { Empty, Screen } from "../components/nav";

/** Tab 1: the trade tab. Its list is built by the markets-and-trades issue. */
export default function TradeTab() {
  const { t } = useTranslation();
  return (
    <Screen title={t("tabs.trade")} tabs>
      <Empty />
    </Screen>
  );
}
