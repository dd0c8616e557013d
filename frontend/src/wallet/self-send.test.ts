import { readFileSync } from "node:fs";
import path from "node:path";
import { AbiCoder, id, Interface, TypedDataEncoder, zeroPadValue } from "ethers";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { PaymentsAuthorization, TokenDomain } from "@/api/types";
import { getPublicConfig } from "@/config";
import { transferAuthorizationTypedData } from "@/lib/authorization";
import { startAnvil, type Anvil } from "../../test/anvil";
import { TEST_CONFIG } from "../../test/fixtures";
import { installFakeServer, json } from "../../test/http";
import { installPublicConfig } from "../../test/setup";
import { listSubmissions, type StoredSubmission } from "./pending";
import { followSelfSent, sendItYourself } from "./self-send";
import { submitSignedGuess } from "./signed";
import type { EIP1193Provider, RequestArguments } from "./types";

/** A stake paid with one signature and no ETH, on a real anvil node with the project's test USDC
 * (contracts/TestUSDC.sol: EIP-3009 as Circle's FiatToken v2.2). The player's account holds USDC and
 * no ETH at all; the page signs through anvil's own eth_signTypedData_v4 (its accounts are
 * unlocked), and "Send it yourself" is sent from another account of the player's that has ETH. Only
 * Geopoem's server is scripted (fetch): it stores the claim; the chain is real. */

const ARTIFACT = JSON.parse(
  readFileSync(path.resolve(__dirname, "..", "..", "..", "contracts", "build", "TestUSDC.json"), "utf8"),
) as { abi: unknown[]; bytecode: string };
const TOKEN = new Interface(ARTIFACT.abi as string[]);
const AUTHORIZATION_USED = id("AuthorizationUsed(address,bytes32)");
const TRANSFER = id("Transfer(address,address,uint256)");
const STAKE_UNITS = 2_500_000n;

let anvil: Anvil;
let usdc: string;
let payer: string;
let sender: string;
let treasury: string;
let domain: TokenDomain;

/** The player's wallet over the node: one selected account, on the node's chain; the rest is the
 * node's own answer (anvil signs typed data and sends transactions for its unlocked accounts). */
function walletOf(account: string): EIP1193Provider & { methods: string[] } {
  const methods: string[] = [];
  return {
    methods,
    request: async (args: RequestArguments) => {
      methods.push(args.method);
      switch (args.method) {
        case "wallet_requestPermissions":
          return [{ parentCapability: "eth_accounts" }];
        case "eth_accounts":
        case "eth_requestAccounts":
          return [account];
        default:
          return anvil.provider.request(args);
      }
    },
  };
}

async function call(data: string): Promise<string> {
  return (await anvil.rpc("eth_call", [{ to: usdc, data }, "latest"])) as string;
}

async function usdcOf(address: string): Promise<bigint> {
  return BigInt(await call(TOKEN.encodeFunctionData("balanceOf", [address])));
}

async function ethOf(address: string): Promise<bigint> {
  return BigInt((await anvil.rpc("eth_getBalance", [address, "latest"])) as string);
}

/** The transaction's receipt, once the node has mined it (automine may answer the hash first). */
async function receiptOf(hash: string) {
  for (let tries = 0; ; tries += 1) {
    const receipt = (await anvil.rpc("eth_getTransactionReceipt", [hash])) as {
      status: string;
      contractAddress: string | null;
      logs: { address: string; topics: string[]; data: string; logIndex: string }[];
    } | null;
    if (receipt) return receipt;
    if (tries > 100) throw new Error(`${hash} not mined`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  anvil = await startAnvil();
  const [deployer, a1, a2, , , , , , , a9] = anvil.accounts;
  payer = a1!;
  sender = a2!;
  treasury = a9!;
  const deployed = (await anvil.rpc("eth_sendTransaction", [
    { from: deployer, data: ARTIFACT.bytecode, gas: "0x4c4b40" },
  ])) as string;
  // Through receiptOf: automine may answer the hash before the block holds the receipt.
  usdc = (await receiptOf(deployed)).contractAddress!;
  // The domain as the server reads it from the token (docs/protocol.md 2a, "The token's domain").
  const [name] = TOKEN.decodeFunctionResult("name", await call(TOKEN.encodeFunctionData("name")));
  const [version] = TOKEN.decodeFunctionResult("version", await call(TOKEN.encodeFunctionData("version")));
  domain = { name: String(name), version: String(version), chainId: 31337, verifyingContract: usdc };
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

beforeEach(async () => {
  installPublicConfig({
    ...TEST_CONFIG,
    chainId: 31337,
    chainIdHex: "0x7a69",
    explorerUrl: "",
    usdcAddress: usdc,
    treasuryAddress: treasury,
  });
  await anvil.rpc("evm_setAutomine", [true]);
  await anvil.rpc("eth_sendTransaction", [
    { from: anvil.accounts[0], to: usdc, data: TOKEN.encodeFunctionData("mint", [payer, 10_000_000n]) },
  ]);
  // A player with USDC and no ETH at all.
  await anvil.rpc("anvil_setBalance", [payer, "0x0"]);
});

afterEach(() => vi.unstubAllGlobals());

/** The page's whole signed stake against the node; Geopoem's answer is scripted. Returns the record. */
async function signedStake(salt: string): Promise<{ record: StoredSubmission; posted: Record<string, unknown> }> {
  const server = installFakeServer();
  let posted: Record<string, unknown> = {};
  server.on("POST", "/api/responses", (init) => {
    posted = JSON.parse(init?.body as string) as Record<string, unknown>;
    return json({ id: 1, status: "pending", transactionHash: null }, 201);
  });
  const head = (await anvil.rpc("eth_getBlockByNumber", ["latest", false])) as { timestamp: string };
  const payments: PaymentsAuthorization & { token: TokenDomain } = {
    token: domain,
    relay: { available: true, reason: "", address: sender },
    validitySeconds: 1800,
    minRemainingSeconds: 60,
  };
  const wallet = walletOf(payer);
  await submitSignedGuess(
    { challengeId: 7, text: "48.8584, 2.2945", stake: "2.5", units: STAKE_UNITS, salt },
    {
      provider: wallet,
      config: getPublicConfig(),
      payments,
      expectChainSwitch: () => undefined,
      now: () => Number.parseInt(head.timestamp, 16),
    },
  );
  expect(wallet.methods).toContain("eth_signTypedData_v4");
  expect(wallet.methods).not.toContain("eth_sendTransaction");
  return { record: listSubmissions().find((r) => r.salt === salt)!, posted };
}

describe("a stake paid by signature, on anvil with the test USDC", () => {
  it("the page's domain is the token's: its EIP-712 hash is DOMAIN_SEPARATOR()", async () => {
    const [separator] = TOKEN.decodeFunctionResult(
      "DOMAIN_SEPARATOR",
      await call(TOKEN.encodeFunctionData("DOMAIN_SEPARATOR")),
    );
    expect(TypedDataEncoder.hashDomain(domain)).toBe(separator);
    expect(domain).toMatchObject({ name: "Test USD Coin", version: "2" });
  });

  it("a player without ETH signs; sent yourself from an account with ETH, the token moves the stake to the treasury", async () => {
    const treasuryBefore = await usdcOf(treasury);
    const payerBefore = await usdcOf(payer);
    const { record, posted } = await signedStake("a1".repeat(32));
    // Signing cost nothing: the player still has no ETH, and no USDC moved yet.
    expect(await ethOf(payer)).toBe(0n);
    expect(await usdcOf(payer)).toBe(payerBefore);
    expect(posted.authorization).toEqual({
      validAfter: 0,
      validBefore: record.authorization!.validBefore,
      signature: record.authorization!.signature,
    });

    const hash = await sendItYourself(record, {
      provider: walletOf(sender),
      config: getPublicConfig(),
      expectChainSwitch: () => undefined,
    });
    const receipt = await receiptOf(hash);
    expect(receipt.status).toBe("0x1");
    const tx = (await anvil.rpc("eth_getTransactionByHash", [hash])) as { from: string; to: string; input: string };
    expect(tx.from.toLowerCase()).toBe(sender.toLowerCase());
    expect(tx.to.toLowerCase()).toBe(usdc.toLowerCase());
    expect((tx.input.length - 2) / 2).toBe(324);
    // The challenge id rides in the last word (the ledger and the verifiers read it there).
    expect(BigInt(`0x${tx.input.slice(-64)}`)).toBe(7n);
    // AuthorizationUsed(payer, commitment), then the Transfer right after it (docs/protocol.md 2a).
    const used = receipt.logs.findIndex((log) => log.topics[0] === AUTHORIZATION_USED);
    expect(receipt.logs[used]!.topics).toEqual([
      AUTHORIZATION_USED,
      zeroPadValue(payer.toLowerCase(), 32),
      `0x${record.commitment}`,
    ]);
    const transfer = receipt.logs[used + 1]!;
    expect(transfer.topics).toEqual([
      TRANSFER,
      zeroPadValue(payer.toLowerCase(), 32),
      zeroPadValue(treasury.toLowerCase(), 32),
    ]);
    expect(AbiCoder.defaultAbiCoder().decode(["uint256"], transfer.data)[0]).toBe(STAKE_UNITS);
    expect(await usdcOf(treasury)).toBe(treasuryBefore + STAKE_UNITS);
    expect(await usdcOf(payer)).toBe(payerBefore - STAKE_UNITS);
    expect(await ethOf(payer)).toBe(0n);

    expect(
      await followSelfSent(
        listSubmissions().find((r) => r.salt === record.salt)!,
        walletOf(sender),
      ),
    ).toBe("mined");
    expect(listSubmissions().find((r) => r.salt === record.salt)?.selfSent).toEqual({ state: "mined", hash });
  });

  it("when Geopoem's transaction is mined first, the player's own fails on chain and moves nothing more", async () => {
    const { record } = await signedStake("b2".repeat(32));
    const payerBefore = await usdcOf(payer);
    await anvil.rpc("evm_setAutomine", [false]);
    const own = await sendItYourself(record, {
      provider: walletOf(sender),
      config: getPublicConfig(),
      expectChainSwitch: () => undefined,
    });
    // The relay sends the same authorization with a higher fee: mined first in the same block.
    const relayed = (await anvil.rpc("eth_sendTransaction", [
      {
        from: anvil.accounts[3],
        to: usdc,
        data: ((await anvil.rpc("eth_getTransactionByHash", [own])) as { input: string }).input,
        gas: "0x30d40",
        maxPriorityFeePerGas: "0x3b9aca000",
        maxFeePerGas: "0x4a817c8000",
      },
    ])) as string;
    await anvil.rpc("evm_mine");
    expect((await receiptOf(relayed)).status).toBe("0x1");
    expect((await receiptOf(own)).status).toBe("0x0");
    const kept = listSubmissions().find((r) => r.salt === record.salt)!;
    expect(await followSelfSent(kept, walletOf(sender))).toBe("failed");
    expect(listSubmissions().find((r) => r.salt === record.salt)?.selfSent).toEqual({ state: "failed", hash: own });
    expect(await usdcOf(payer)).toBe(payerBefore - STAKE_UNITS);
  });

  it("an expired authorization: the token refuses it on chain, the page says it failed, and nothing moves", async () => {
    const { record } = await signedStake("c3".repeat(32));
    const payerBefore = await usdcOf(payer);
    await anvil.rpc("evm_increaseTime", [1801]);
    await anvil.rpc("evm_mine");
    // anvil's wallet sends it anyway (MetaMask would warn first); the token reverts it.
    const hash = await sendItYourself(record, {
      provider: walletOf(sender),
      config: getPublicConfig(),
      expectChainSwitch: () => undefined,
    });
    expect((await receiptOf(hash)).status).toBe("0x0");
    const kept = listSubmissions().find((r) => r.salt === record.salt)!;
    expect(await followSelfSent(kept, walletOf(sender))).toBe("failed");
    expect(await usdcOf(payer)).toBe(payerBefore);
  });

  it("a wallet that refuses to send (no ETH in the sending account): its words are kept, nothing moves", async () => {
    const { record } = await signedStake("e5".repeat(32));
    const payerBefore = await usdcOf(payer);
    // The player sends from the account that signed, which has no ETH at all.
    const error: unknown = await sendItYourself(record, {
      provider: walletOf(payer),
      config: getPublicConfig(),
      expectChainSwitch: () => undefined,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof Error)) throw new Error("the wallet sent it");
    expect(error.message).toMatch(/^Transaction failed: .*(insufficient funds|lack of funds)/i);
    expect(listSubmissions().find((r) => r.salt === record.salt)?.selfSent).toEqual({
      state: "error",
      message: error.message,
    });
    expect(await usdcOf(payer)).toBe(payerBefore);
  });

  it("the typed data the page asks the wallet to sign is the one the token checks (no other amount or recipient)", async () => {
    const { record } = await signedStake("d4".repeat(32));
    const typed = transferAuthorizationTypedData(domain, {
      from: payer,
      to: treasury,
      value: STAKE_UNITS,
      validAfter: 0,
      validBefore: record.authorization!.validBefore,
      nonce: record.commitment!,
    });
    const again = (await anvil.rpc("eth_signTypedData_v4", [payer, JSON.stringify(typed)])) as string;
    expect(again).toBe(record.authorization!.signature);
    // The same signature over another amount is not the payer's: the token refuses it.
    const tampered = await anvil
      .rpc("eth_call", [
        {
          from: sender,
          to: usdc,
          data: TOKEN.encodeFunctionData(
            "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)",
            [payer, treasury, STAKE_UNITS + 1n, 0, record.authorization!.validBefore, `0x${record.commitment}`, again],
          ),
        },
        "latest",
      ])
      .catch((e: unknown) => e as Error);
    expect((tampered as Error).message).toMatch(/invalid signature/);
  });
});
