// What the page frame needs at first paint; the stake flows (flow.ts, signed.ts) load on Confirm.
export { WALLET_MESSAGES, WalletError } from "./errors";
export { PROGRESS } from "./connect";
export * from "./pending";
export type { EIP1193Provider, WalletDetail, WalletInfo } from "./types";
export { useWallet, WalletProvider } from "./WalletContext";
export { WalletControl } from "./WalletControl";
