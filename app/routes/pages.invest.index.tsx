import { useTranslation } from "react-i18next";
import { Empty, Screen } from "../components/nav";

/** Tab 2: the markets tab. Its list is built by the markets-and-trades issue. */
export default function MarketsTab() {
  const { t } = useTranslation();
  return (
    <Screen title={t("tabs.markets")} tabs>
      <Empty />
    </Screen>
  );
}
