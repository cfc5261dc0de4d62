import { useTranslation } from "react-i18next";

/** A localized name for a ledger reason or account code; an unknown one shows as it is. */
export function useLedgerWords() {
  const { t } = useTranslation("wallet");
  return {
    code: (code: string) => t(`record.code.${code}`, { defaultValue: code }),
    account: (account: string) => t(`record.account.${account}`, { defaultValue: account }),
  };
}
