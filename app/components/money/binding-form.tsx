import { useFetcher, useLocation, useNavigate } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { proofFields, useTwoFactorOn } from "../../lib/two-factor";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useFieldGuard } from "../form";
import { Screen } from "../nav";
import { useUi } from "../ui";
import { ConfirmPasswordField } from "./confirm-password";

/**
 * The form that binds a withdrawal destination (an address or a bank card): its fields, the
 * login password that confirms it, and after a success back to where the user came from (the
 * list, or the withdrawal form), else to the list.
 */
export function BindingForm(props: { title: string; listPath: string; required: readonly string[]; submit: string; submitTestId: string; children: ReactNode }) {
  const { t } = useTranslation();
  const ui = useUi();
  const guardFields = useFieldGuard();
  const navigate = useNavigate();
  const location = useLocation();
  const fetcher = useFetcher<PageEnvelope>();
  const proofs = proofFields(useTwoFactorOn());
  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    if ((location.state as { back?: boolean } | null)?.back) navigate(-1);
    else navigate(props.listPath, { replace: true });
  });
  return (
    <Screen title={props.title} back>
      <fetcher.Form
        method="post"
        className="card form"
        noValidate
        onSubmit={guardFields([...props.required, ...proofs])}
      >
        {props.children}
        <ConfirmPasswordField />
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"} data-testid={props.submitTestId}>
          {props.submit}
        </button>
      </fetcher.Form>
    </Screen>
  );
}
