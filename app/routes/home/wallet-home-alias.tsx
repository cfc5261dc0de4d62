/** The product's alias of the wallet home. */
export { default, loader } from "./wallet-home";
export { shouldRevalidate } from "../../lib/revalidate";
