import { LoginForm } from "./login";
export { action, loader } from "./login";
export { clientAction } from "../../lib/client-action";

/** The product's second login variant: the same account login, under its own route. */
export default function Login2() {
  return <LoginForm titleKey="login2_title" />;
}
