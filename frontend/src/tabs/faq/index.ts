export * from "./FaqTab";
