import { afterEach, describe, expect, it, vi } from "vitest";
import vectors from "../../../tests/vectors.json";
import { getPublicConfig } from "@/config";
import { FakeWallet, PLAYER, RpcError, TX_HASH } from "../../test/fakeWallet";
import { installFakeServer, json } from "../../test/http";
import { PROGRESS, submitGuess, waitForReceipt } from "./flow";
import { listSubmissions } from "./pending";

const SALT = "0".repeat(64);
const GUESS = { challengeId: 1, text: "29.979175, 31.134258", stake: "1", units: 1_000_000n, salt: SALT };
const noSleep = () => Promise.resolve();

afterEach(() => vi.unstubAllGlobals());

function run(
  wallet: FakeWallet | null,
  progress: string[] = [],
  switches: (string | null)[] = [],
  onAccount?: (address: string) => unknown,
) {
  return submitGuess(GUESS, {
    provider: wallet,
    config: getPublicConfig(),
    onProgress: (m) => progress.push(m),
    expectChainSwitch: (chainIdHex) => switches.push(chainIdHex),
    onAccount,
    sleep: noSleep,
    now: () => vectors.calldata[0]!.timestamp,
  });
}

describe("submitGuess", () => {
  it("asks for the account, checks the chain, pays with the protocol's calldata, waits, then posts the claim", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 9, status: "pending" }, 201));
    const wallet = new FakeWallet({ eth_blockNumber: () => "0xf" });
    const progress: string[] = [];
    const result = await run(wallet, progress);

    expect(progress).toEqual([
      PROGRESS.connecting,
      PROGRESS.selectAccount,
      PROGRESS.sending,
      PROGRESS.waiting,
      PROGRESS.confirmed,
      PROGRESS.submitting,
    ]);
    expect(progress).toEqual([
      "Connecting to wallet...",
      "Please select your MetaMask account...",
      "Sending transaction...",
      "Waiting for transaction confirmation...",
      "Transaction confirmed successfully!",
      "Submitting solution...",
    ]);
    expect(wallet.methods()).toEqual([
      "wallet_requestPermissions",
      "eth_accounts",
      "eth_chainId",
      // The head before sending and the nonce after: where and how to find a replacement.
      "eth_blockNumber",
      "eth_sendTransaction",
      "eth_getTransactionByHash",
      "eth_getTransactionReceipt",
    ]);
    const tx = (wallet.calls[4]?.params as Record<string, string>[])[0];
    // The shared vector's calldata: same treasury, amount, commitment, challenge and timestamp.
    expect(tx).toEqual({
      from: PLAYER,
      to: getPublicConfig().usdcAddress,
      data: vectors.calldata[0]!.data,
      value: "0x0",
    });
    expect(JSON.parse(server.calls[0]?.init?.body as string)).toEqual({
      challengeId: 1,
      submissionText: "29.979175, 31.134258",
      submissionStake: "1",
      transactionHash: TX_HASH,
      submitterAddress: PLAYER,
      submissionSalt: SALT,
    });
    expect(result.transactionHash).toBe(TX_HASH);
    // The commitment is kept with the guess: My submissions asks for this claim by it.
    expect(listSubmissions()[0]).toMatchObject({
      state: "submitted",
      transactionHash: TX_HASH,
      salt: SALT,
      commitment: vectors.calldata[0]!.commitment,
      calldata: vectors.calldata[0]!.data,
      nonce: 5,
      sentFromBlock: 15,
    });
  });

  it("switches the network, adding it from the public config when the wallet does not know it (4902)", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 9 }, 201));
    let added = false;
    const wallet = new FakeWallet({
      eth_chainId: () => "0x1",
      wallet_switchEthereumChain: () => {
        if (!added) throw new RpcError(4902, "Unrecognized chain ID");
        return null;
      },
      wallet_addEthereumChain: () => {
        added = true;
        return null;
      },
    });
    const switches: (string | null)[] = [];
    await run(wallet, [], switches);
    // The wallet context is told which chainChanged event is the flow's own (it must not reload).
    expect(switches).toEqual(["0xaa36a7"]);
    const add = wallet.calls.find((c) => c.method === "wallet_addEthereumChain");
    expect(add?.params).toEqual([
      {
        chainId: "0xaa36a7",
        chainName: "Sepolia",
        nativeCurrency: { name: "SepoliaETH", symbol: "SepoliaETH", decimals: 18 },
        rpcUrls: ["https://rpc.sepolia.example"],
        blockExplorerUrls: ["https://sepolia.etherscan.io"],
      },
    ]);
  });

  it("withdraws the announced network switch when the wallet refuses it", async () => {
    installFakeServer();
    const wallet = new FakeWallet({
      eth_chainId: () => "0x1",
      wallet_switchEthereumChain: () => {
        throw new RpcError(4001, "User rejected");
      },
    });
    const switches: (string | null)[] = [];
    await expect(run(wallet, [], switches)).rejects.toThrow("Failed to switch to Sepolia network");
    expect(switches).toEqual(["0xaa36a7", null]);
  });

  const failures: [string, Record<string, () => unknown> | null, string][] = [
    ["no wallet", null, "MetaMask is not installed. Please install it to use this feature."],
    [
      "account picker cancelled",
      {
        wallet_requestPermissions: () => {
          throw new RpcError(4001, "User rejected the request.");
        },
      },
      "Please select an account in MetaMask.",
    ],
    ["locked wallet", { eth_accounts: () => [] }, "No accounts found. Please unlock MetaMask."],
    [
      "network add refused",
      {
        eth_chainId: () => "0x1",
        wallet_switchEthereumChain: () => {
          throw new RpcError(4902, "Unrecognized chain");
        },
        wallet_addEthereumChain: () => {
          throw new RpcError(4001, "User rejected");
        },
      },
      "Failed to add Sepolia network to MetaMask",
    ],
    [
      "network switch refused",
      {
        eth_chainId: () => "0x1",
        wallet_switchEthereumChain: () => {
          throw new RpcError(4001, "User rejected");
        },
      },
      "Failed to switch to Sepolia network",
    ],
    [
      "transaction rejected",
      {
        eth_sendTransaction: () => {
          throw new RpcError(4001, "User denied transaction signature.");
        },
      },
      "Transaction rejected by user",
    ],
    [
      "transaction error",
      {
        eth_sendTransaction: () => {
          throw new RpcError(-32603, "insufficient funds for gas");
        },
      },
      "Transaction failed: insufficient funds for gas",
    ],
    [
      "reverted transaction",
      { eth_getTransactionReceipt: () => ({ status: "0x0" }) },
      "Transaction failed - insufficient balance or other error",
    ],
    [
      "never mined",
      { eth_getTransactionReceipt: () => null },
      "Transaction confirmation timeout - please check your wallet",
    ],
  ];

  it.each(failures)("%s: %s", async (_case, handlers, message) => {
    const server = installFakeServer();
    const wallet = handlers === null ? null : new FakeWallet(handlers);
    await expect(run(wallet)).rejects.toThrow(message);
    expect(server.fetch).not.toHaveBeenCalled();
  });

  it("keeps the guess before sending, and keeps a paid claim whose POST failed", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ message: "Service unavailable." }, 503));
    let storedBeforeSend: unknown;
    const wallet = new FakeWallet({
      eth_sendTransaction: () => {
        storedBeforeSend = listSubmissions()[0];
        return TX_HASH;
      },
    });
    await expect(run(wallet)).rejects.toThrow("503: Service unavailable.");
    expect(storedBeforeSend).toMatchObject({
      text: GUESS.text,
      salt: SALT,
      stake: "1",
      challengeId: 1,
      state: "prepared",
    });
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", transactionHash: TX_HASH });
  });

  it("records nothing as paid when the wallet cancels", async () => {
    installFakeServer();
    const wallet = new FakeWallet({
      eth_sendTransaction: () => {
        throw new RpcError(4001, "denied");
      },
    });
    const accounts: string[] = [];
    await expect(run(wallet, [], [], (a) => accounts.push(a))).rejects.toThrow("Transaction rejected by user");
    // Not even a "Not paid" entry: refusing in the wallet leaves nothing in My submissions.
    expect(listSubmissions()).toEqual([]);
    // The account was picked before the refusal: the header shows it (not "Connect MetaMask").
    expect(accounts).toEqual([PLAYER]);
  });

  it("keeps the guess when the wallet fails to send for another reason (it may have sent)", async () => {
    installFakeServer();
    const wallet = new FakeWallet({
      eth_sendTransaction: () => {
        throw new RpcError(-32603, "internal error");
      },
    });
    await expect(run(wallet)).rejects.toThrow("Transaction failed: internal error");
    expect(listSubmissions()).toEqual([expect.objectContaining({ salt: SALT, state: "prepared" })]);
  });
});

describe("waitForReceipt", () => {
  it("polls every 2 s and gives up after 60 s", async () => {
    vi.useFakeTimers();
    try {
      const wallet = new FakeWallet({ eth_getTransactionReceipt: () => null });
      const outcome = waitForReceipt(wallet, TX_HASH, { intervalMs: 2000, timeoutMs: 60000 }).catch((e: Error) => e);
      await vi.advanceTimersByTimeAsync(0);
      expect(wallet.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1999);
      expect(wallet.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(wallet.calls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(58000);
      const error = await outcome;
      expect(wallet.calls).toHaveLength(30);
      expect((error as Error).message).toBe("Transaction confirmation timeout - please check your wallet");
    } finally {
      vi.useRealTimers();
    }
  });

  it("confirms when a later poll finds status 0x1", async () => {
    vi.useFakeTimers();
    try {
      let polls = 0;
      const wallet = new FakeWallet({
        eth_getTransactionReceipt: () => (++polls < 3 ? null : { status: "0x1" }),
      });
      const progress: string[] = [];
      const done = waitForReceipt(wallet, TX_HASH, {
        intervalMs: 2000,
        timeoutMs: 60000,
        onProgress: (m) => progress.push(m),
      });
      await vi.advanceTimersByTimeAsync(4000);
      await expect(done).resolves.toMatchObject({ status: "0x1" });
      expect(polls).toBe(3);
      expect(progress).toEqual(["Waiting for transaction confirmation...", "Transaction confirmed successfully!"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
