/** The spec's wallet error messages, word for word. The network's name comes from
 * the public config ("Sepolia" in the beta), so a move to mainnet changes no code. */
export const WALLET_MESSAGES = {
  notInstalled: "MetaMask is not installed. Please install it to use this feature.",
  noAccounts: "No accounts found. Please unlock MetaMask.",
  userRejectedConnect: "Please connect to MetaMask.",
  selectAccount: "Please select an account in MetaMask.",
  addNetworkFailed: (chainName: string) => `Failed to add ${chainName} network to MetaMask`,
  switchNetworkFailed: (chainName: string) => `Failed to switch to ${chainName} network`,
  notConnected: "Wallet not connected",
  transactionRejected: "Transaction rejected by user",
  transactionFailed: (message: string) => `Transaction failed: ${message}`,
  transactionReverted: "Transaction failed - insufficient balance or other error",
  confirmationTimeout: "Transaction confirmation timeout - please check your wallet",
  /** Not in the spec's list: the stake by signature (docs/protocol.md section 2), worded as the
   * transaction's. */
  signatureRejected: "Signature rejected by user",
  signatureFailed: (message: string) => `Signature failed: ${message}`,
} as const;

export type WalletErrorKind =
  | "notInstalled"
  | "noAccounts"
  | "userRejectedConnect"
  | "selectAccount"
  | "addNetworkFailed"
  | "switchNetworkFailed"
  | "notConnected"
  | "transactionRejected"
  | "transactionFailed"
  | "transactionReverted"
  | "confirmationTimeout"
  | "signatureRejected"
  | "signatureFailed";

/** A failure in the wallet part of the flow; `message` is the sentence the player sees. */
export class WalletError extends Error {
  readonly kind: WalletErrorKind;
  constructor(kind: WalletErrorKind, message: string) {
    super(message);
    this.name = "WalletError";
    this.kind = kind;
  }
}
