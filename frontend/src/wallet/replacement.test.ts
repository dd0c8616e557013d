import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startAnvil, type Anvil } from "../../test/anvil";
import { installFakeServer, json } from "../../test/http";
import { getPublicConfig } from "@/config";
import { submitGuess } from "./flow";
import { keepClaims } from "./keeper";
import { listSubmissions, saveSubmission } from "./pending";
import { checkStake, readHead, readNonce, type TrackedStake } from "./replacement";
import type { EIP1193Provider, RequestArguments } from "./types";

/** On a real anvil node with automine off: the wallet's "speed up" and "cancel" are transactions
 * from the same sender with the same nonce and a higher fee, as a wallet sends them. The stake's
 * token is an address that holds no code here: what is compared is the destination and calldata. */

const TOKEN = "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238";
const word = (hexDigits: string) => hexDigits.padStart(64, "0");
// transfer(treasury, 1 USDC) with the commitment, challenge id and timestamp words appended.
const DATA = `0xa9059cbb${word("7".repeat(40))}${word("f4240")}${"ab".repeat(32)}${word("3")}${word("69a5b1c0")}`;
const GWEI = 1_000_000_000n;
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

let anvil: Anvil;
let payer: string;

beforeAll(async () => {
  anvil = await startAnvil();
  payer = anvil.accounts[1]!;
}, 30_000);

afterAll(async () => {
  await anvil?.stop();
});

beforeEach(async () => {
  await anvil.rpc("evm_setAutomine", [false]);
  anvil.provider.calls.length = 0;
});

afterEach(() => vi.unstubAllGlobals());

async function send(tx: { to: string; data: string; nonce?: number; tip: bigint }) {
  return (await anvil.rpc("eth_sendTransaction", [
    {
      from: payer,
      to: tx.to,
      data: tx.data,
      value: "0x0",
      gas: hex(100_000),
      maxPriorityFeePerGas: hex(tx.tip),
      maxFeePerGas: hex(tx.tip + 100n * GWEI),
      ...(tx.nonce === undefined ? {} : { nonce: hex(tx.nonce) }),
    },
  ])) as string;
}

/** The page's steps: the head, send, read the nonce the wallet chose. */
async function sendStake(): Promise<TrackedStake> {
  const fromBlock = (await readHead(anvil.provider)) ?? undefined;
  const hash = await send({ to: TOKEN, data: DATA, tip: 1n * GWEI });
  const nonce = (await readNonce(anvil.provider, hash)) ?? undefined;
  return { hash, from: payer, to: TOKEN, data: DATA, nonce, fromBlock };
}

describe("checkStake on anvil", () => {
  it("is pending while nothing is mined, then mined from the stake's own receipt", async () => {
    const stake = await sendStake();
    expect(stake.nonce).toEqual(expect.any(Number));
    expect(await checkStake(anvil.provider, stake)).toEqual({ kind: "pending", nonce: stake.nonce });
    await anvil.rpc("evm_mine");
    const state = await checkStake(anvil.provider, stake);
    expect(state).toMatchObject({ kind: "mined", receipt: { status: "0x1" } });
  });

  it("follows a sped-up stake (same calldata, same nonce, higher fee) to its new hash", async () => {
    const stake = await sendStake();
    const faster = await send({ to: TOKEN, data: DATA, nonce: stake.nonce!, tip: 5n * GWEI });
    expect(faster).not.toBe(stake.hash);
    await anvil.rpc("evm_mine");
    expect(await anvil.rpc("eth_getTransactionReceipt", [stake.hash])).toBeNull();
    const state = await checkStake(anvil.provider, stake);
    expect(state).toMatchObject({ kind: "replaced", hash: faster, receipt: { status: "0x1" } });
  });

  it("reports a cancelled stake (the nonce taken by a transfer to the sender itself)", async () => {
    const stake = await sendStake();
    const cancel = await send({ to: payer, data: "0x", nonce: stake.nonce!, tip: 5n * GWEI });
    await anvil.rpc("evm_mine");
    expect(await checkStake(anvil.provider, stake)).toEqual({ kind: "cancelled", hash: cancel });
  });

  it("finds the replacement long after sending by bisecting the sender's nonce, not by reading every block", async () => {
    const stake = await sendStake();
    const faster = await send({ to: TOKEN, data: DATA, nonce: stake.nonce!, tip: 5n * GWEI });
    await anvil.rpc("evm_mine");
    await anvil.rpc("anvil_mine", [hex(500)]);
    anvil.provider.calls.length = 0;
    expect(await checkStake(anvil.provider, stake)).toMatchObject({ kind: "replaced", hash: faster });
    const blocksRead = anvil.provider.calls.filter((c) => c.method === "eth_getBlockByNumber").length;
    expect(blocksRead).toBe(1);
  });

  it("learns the stake's nonce from its node while it waits (the page could not read it when sending)", async () => {
    const { nonce, ...stake } = await sendStake();
    expect(await checkStake(anvil.provider, stake)).toEqual({ kind: "pending", nonce });
    await anvil.rpc("evm_mine");
  });
});

describe("keepClaims follows a sent stake on anvil", () => {
  const SALT = "2".repeat(64);

  it("posts the claim on the sped-up hash and keeps the first one in the record", async () => {
    const stake = await sendStake();
    saveSubmission({
      salt: SALT,
      challengeId: 3,
      text: "48.8584, 2.2945",
      stake: "2",
      chainId: 31337,
      submitterAddress: payer,
      transactionHash: stake.hash,
      nonce: stake.nonce!,
      sentFromBlock: stake.fromBlock!,
      calldata: DATA,
      state: "sent",
      createdAt: 1,
    });
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 1, status: "pending" }, 201));
    const deps = { isResolved: async () => false, provider: anvil.provider, tokenAddress: TOKEN, now: () => 0 };

    // Not mined yet: nothing is posted.
    expect(await keepClaims(listSubmissions(), deps)).toEqual({ recorded: 0, refused: [] });
    expect(server.fetch).not.toHaveBeenCalled();

    const faster = await send({ to: TOKEN, data: DATA, nonce: stake.nonce!, tip: 5n * GWEI });
    await anvil.rpc("evm_mine");
    const later = { ...deps, now: () => 10_000 };
    expect(await keepClaims(listSubmissions(), later)).toEqual({ recorded: 1, refused: [] });
    expect(JSON.parse(server.calls[0]?.init?.body as string)).toMatchObject({
      transactionHash: faster,
      submissionSalt: SALT,
    });
    expect(listSubmissions()[0]).toMatchObject({
      state: "submitted",
      transactionHash: faster,
      replacedHashes: [stake.hash],
    });
  });

  it("marks a cancelled stake and posts nothing", async () => {
    const stake = await sendStake();
    saveSubmission({
      salt: SALT,
      challengeId: 3,
      text: "48.8584, 2.2945",
      stake: "2",
      chainId: 31337,
      submitterAddress: payer,
      transactionHash: stake.hash,
      nonce: stake.nonce!,
      sentFromBlock: stake.fromBlock!,
      calldata: DATA,
      state: "sent",
      createdAt: 1,
    });
    const server = installFakeServer();
    await send({ to: payer, data: "0x", nonce: stake.nonce!, tip: 5n * GWEI });
    await anvil.rpc("evm_mine");
    await keepClaims(listSubmissions(), {
      isResolved: async () => false,
      provider: anvil.provider,
      tokenAddress: TOKEN,
    });
    expect(listSubmissions()[0]?.state).toBe("cancelled");
    expect(server.fetch).not.toHaveBeenCalled();
  });
});

describe("submitGuess on anvil, when the wallet replaces the stake during the wait", () => {
  const SALT = "4".repeat(64);
  const GUESS = { challengeId: 1, text: "29.979175, 31.134258", stake: "1", units: 1_000_000n, salt: SALT };

  /** The player's wallet: anvil, with the account and network steps a wallet answers itself. */
  function wallet() {
    const sent: { hash: string; tx: Record<string, string> }[] = [];
    const provider = {
      request: async (args: RequestArguments) => {
        const params = (args.params as unknown[] | undefined) ?? [];
        switch (args.method) {
          case "wallet_requestPermissions":
            return [{ parentCapability: "eth_accounts" }];
          case "eth_accounts":
            return [payer];
          case "eth_chainId":
            return getPublicConfig().chainIdHex;
          case "eth_sendTransaction": {
            const hash = (await anvil.provider.request(args)) as string;
            sent.push({ hash, tx: params[0] as Record<string, string> });
            return hash;
          }
          default:
            return anvil.provider.request(args);
        }
      },
    };
    return { provider, sent };
  }

  function submit(provider: EIP1193Provider, onWait: () => Promise<void>) {
    let waits = 0;
    return submitGuess(GUESS, {
      provider,
      config: getPublicConfig(),
      expectChainSwitch: () => undefined,
      sleep: async () => {
        waits += 1;
        if (waits === 1) await onWait();
      },
    });
  }

  it("speed-up: the claim is posted on the new hash, and the record follows it", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 5, status: "pending" }, 201));
    const { provider, sent } = wallet();
    let faster = "";
    const result = await submit(provider, async () => {
      const first = sent[0]!;
      const nonce = (await readNonce(anvil.provider, first.hash))!;
      faster = await send({ to: first.tx.to!, data: first.tx.data!, nonce, tip: 5n * GWEI });
      await anvil.rpc("evm_mine");
    });
    expect(faster).toMatch(/^0x[0-9a-f]{64}$/);
    expect(result.transactionHash).toBe(faster);
    expect(JSON.parse(server.calls[0]?.init?.body as string)).toMatchObject({ transactionHash: faster });
    expect(listSubmissions()[0]).toMatchObject({
      state: "submitted",
      transactionHash: faster,
      replacedHashes: [sent[0]!.hash],
    });
  });

  it("cancel: the player is told nothing was paid, the record says cancelled, and no claim is posted", async () => {
    const server = installFakeServer();
    const { provider, sent } = wallet();
    const outcome = submit(provider, async () => {
      const nonce = (await readNonce(anvil.provider, sent[0]!.hash))!;
      await send({ to: payer, data: "0x", nonce, tip: 5n * GWEI });
      await anvil.rpc("evm_mine");
    });
    await expect(outcome).rejects.toThrow("Transaction cancelled in your wallet - nothing was paid");
    expect(listSubmissions()[0]).toMatchObject({ state: "cancelled", transactionHash: sent[0]!.hash });
    expect(server.fetch).not.toHaveBeenCalled();
  });
});
