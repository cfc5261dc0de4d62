import { LoginForm } from "./pages.user.login";
export { action, loader } from "./pages.user.login";
export { clientAction } from "../lib/client-action";

/** The spec's second login variant: the same account login, under its own route. */
export default function Login2() {
  return <LoginForm titleKey="login2_title" />;
}
