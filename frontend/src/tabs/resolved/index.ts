export * from "./ResolvedTab";
