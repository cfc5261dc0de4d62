/** The spec's alias of the wallet home. */
export { default, loader } from "./_index";
export { shouldRevalidate } from "../lib/revalidate";
