export { MySubmissionsPanel } from "./MySubmissionsPanel";
export { RecoverLostSubmissions } from "./RecoverLostSubmissions";
