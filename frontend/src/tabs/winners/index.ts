export * from "./WinnersTab";
