export * from "./GettingStartedTab";
