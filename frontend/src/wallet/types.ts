/** EIP-1193: the provider object a browser wallet injects. */
export interface RequestArguments {
  method: string;
  params?: readonly unknown[] | object;
}

export interface EIP1193Provider {
  request(args: RequestArguments): Promise<unknown>;
  on?(event: string, listener: (...args: never[]) => void): void;
  removeListener?(event: string, listener: (...args: never[]) => void): void;
}

/** EIP-6963: what a wallet announces about itself. */
export interface WalletInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

export interface WalletDetail {
  info: WalletInfo;
  provider: EIP1193Provider;
}

/** A JSON-RPC error from the wallet: 4001 user rejected, 4902 unknown chain, -32002 pending request. */
export interface ProviderRpcError {
  code?: number;
  message?: string;
  data?: { originalError?: { code?: number } };
}

export function rpcErrorCode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as ProviderRpcError;
  return e.code ?? e.data?.originalError?.code;
}

export function rpcErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && typeof (error as ProviderRpcError).message === "string") {
    return (error as ProviderRpcError).message ?? "";
  }
  return String(error);
}

export const USER_REJECTED = 4001;
export const UNRECOGNIZED_CHAIN = 4902;
