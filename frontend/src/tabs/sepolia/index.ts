export * from "./SepoliaTab";
