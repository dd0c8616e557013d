export { ActiveChallengeTab } from "./ActiveChallengeTab";
