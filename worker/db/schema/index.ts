export * from "./identity";
export * from "./operators";
export * from "./content";
export * from "./ledger";
export * from "./money";
export * from "./trades";
export * from "./profiles";
export * from "./earn";
