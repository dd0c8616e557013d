export { WALLET_MESSAGES, WalletError } from "./errors";
export { PROGRESS, submitByApproval, waitForReceipt } from "./flow";
export type { Guess, SubmitResult } from "./flow";
export * from "./pending";
export type { EIP1193Provider, WalletDetail, WalletInfo } from "./types";
export { useWallet, WalletProvider } from "./WalletContext";
export { WalletControl } from "./WalletControl";
