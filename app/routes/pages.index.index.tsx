/** The spec's alias of the wallet home. */
export { default, loader } from "./_index";
