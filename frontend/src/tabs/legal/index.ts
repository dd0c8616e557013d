export * from "./LegalTab";
