import { TypedDataEncoder, verifyTypedData } from "ethers";
import { afterEach, describe, expect, it, vi } from "vitest";
import vectors from "../../../tests/vectors.json";
import { getPublicConfig } from "@/config";
import { FakeWallet, PLAYER, RpcError, TX_HASH } from "../../test/fakeWallet";
import { installFakeServer, json, type FakeServer } from "../../test/http";
import { PAYMENTS_OFFERED } from "../../test/payments";
import { SIGNED_VECTOR } from "../../test/submissions";
import { dueClaims } from "./keeper";
import { PROGRESS, SubmissionError } from "./flow";
import { listSubmissions } from "./pending";
import { AuthorizationsNotAccepted, FALLBACK_PROGRESS, SIGN_PROGRESS, submitSignedGuess } from "./signed";
import { WalletError } from "./errors";

/** The stake paid by signature (docs/protocol.md 2a, 3.3a) with a scripted wallet and network. The
 * guess, the config, the clock and the payments answer are those of the shared vector
 * (tests/vectors.json, transferAuthorizations[0]), so the typed data the wallet is asked to sign
 * must hash to its digest and its signature is the right one. */

const SALT = "0".repeat(64);
const GUESS = { challengeId: 1, text: "29.979175, 31.134258", stake: "1", units: 1_000_000n, salt: SALT };
const NOW = SIGNED_VECTOR.message.validBefore - PAYMENTS_OFFERED.validitySeconds;
const noSleep = () => Promise.resolve();

afterEach(() => vi.unstubAllGlobals());

/** The wallet signs with the shared vector's signature; each request is recorded. */
function signingWallet(handlers: Record<string, (params: unknown) => unknown> = {}) {
  return new FakeWallet({ eth_signTypedData_v4: () => SIGNED_VECTOR.signature, ...handlers });
}

function run(
  wallet: FakeWallet,
  {
    progress = [],
    onFallback = () => undefined,
    onAccount,
  }: { progress?: string[]; onFallback?: () => unknown; onAccount?: (address: string) => unknown } = {},
) {
  return submitSignedGuess(GUESS, {
    provider: wallet,
    config: getPublicConfig(),
    payments: { ...PAYMENTS_OFFERED, token: PAYMENTS_OFFERED.token! },
    onProgress: (m) => progress.push(m),
    onFallback,
    onAccount,
    expectChainSwitch: () => undefined,
    sleep: noSleep,
    now: () => NOW,
  });
}

const postBodies = (server: FakeServer) =>
  server.calls.filter((c) => c.init?.method === "POST").map((c) => JSON.parse(c.init?.body as string));

describe("submitSignedGuess", () => {
  it("asks for the account and the chain, keeps the record, signs the protocol's typed data, then posts the claim with it", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 9, status: "pending", transactionHash: null }, 201));
    let kept: unknown;
    const wallet = signingWallet({
      eth_signTypedData_v4: () => {
        // Saved before the wallet is asked: the typed data's values, no signature yet.
        kept = structuredClone(listSubmissions()[0]);
        return SIGNED_VECTOR.signature;
      },
    });
    const progress: string[] = [];
    const result = await run(wallet, { progress });

    expect(progress).toEqual([PROGRESS.connecting, PROGRESS.selectAccount, SIGN_PROGRESS, PROGRESS.submitting]);
    expect(progress).toEqual([
      "Connecting to wallet...",
      "Please select your MetaMask account...",
      "Please sign the payment in your wallet...",
      "Submitting solution...",
    ]);
    // One signature, no transaction: nothing costs the player gas.
    expect(wallet.methods()).toEqual([
      "wallet_requestPermissions",
      "eth_accounts",
      "eth_chainId",
      "eth_signTypedData_v4",
    ]);
    const [address, raw] = wallet.calls[3]?.params as [string, string];
    expect(address).toBe(PLAYER);
    const typed = JSON.parse(raw) as {
      domain: Record<string, unknown>;
      types: Record<string, { name: string; type: string }[]>;
      message: Record<string, unknown>;
      primaryType: string;
    };
    const { EIP712Domain: _domainType, ...types } = typed.types;
    expect(typed.primaryType).toBe("TransferWithAuthorization");
    expect(typed.domain).toEqual(SIGNED_VECTOR.domain);
    expect(typed.message).toEqual({
      from: PLAYER,
      to: getPublicConfig().treasuryAddress,
      value: "1000000",
      validAfter: "0",
      validBefore: String(NOW + 1800),
      // The nonce is the guess commitment (the calldata vector's, for the same guess and payer).
      nonce: `0x${vectors.calldata[0]!.commitment}`,
    });
    expect(TypedDataEncoder.hash(typed.domain, types, typed.message)).toBe(SIGNED_VECTOR.digest);
    expect(verifyTypedData(typed.domain, types, typed.message, SIGNED_VECTOR.signature)).toBe(PLAYER);

    expect(kept).toMatchObject({
      state: "prepared",
      paymentMethod: "authorization",
      submitterAddress: PLAYER,
      commitment: vectors.calldata[0]!.commitment,
      authorization: {
        token: SIGNED_VECTOR.domain,
        to: getPublicConfig().treasuryAddress,
        value: "1000000",
        validAfter: 0,
        validBefore: NOW + 1800,
      },
    });
    expect((kept as { authorization: { signature?: string } }).authorization.signature).toBeUndefined();

    expect(postBodies(server)).toEqual([
      {
        challengeId: 1,
        submissionText: "29.979175, 31.134258",
        submissionStake: "1",
        submitterAddress: PLAYER,
        submissionSalt: SALT,
        authorization: { validAfter: 0, validBefore: NOW + 1800, signature: SIGNED_VECTOR.signature },
      },
    ]);
    expect(result).toMatchObject({ transactionHash: null, submitterAddress: PLAYER, paymentMethod: "authorization" });
    expect(listSubmissions()).toHaveLength(1);
    expect(listSubmissions()[0]).toMatchObject({
      state: "submitted",
      authorization: { signature: SIGNED_VECTOR.signature, validBefore: NOW + 1800 },
      postedAt: expect.any(Number),
    });
  });

  it("keeps the signature with v 27 or 28 when the wallet answers 0 or 1", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 9, status: "pending" }, 201));
    const low = SIGNED_VECTOR.signature.slice(0, -2) + (SIGNED_VECTOR.signature.endsWith("1b") ? "00" : "01");
    await run(signingWallet({ eth_signTypedData_v4: () => low }));
    expect(postBodies(server)[0].authorization.signature).toBe(SIGNED_VECTOR.signature);
  });

  it("refused in the wallet (4001): nothing is recorded, nothing is posted", async () => {
    const server = installFakeServer();
    const wallet = signingWallet({
      eth_signTypedData_v4: () => {
        throw new RpcError(4001, "MetaMask Message Signature: User denied message signature.");
      },
    });
    const accounts: string[] = [];
    const error = await run(wallet, { onAccount: (a) => accounts.push(a) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletError);
    expect((error as WalletError).kind).toBe("signatureRejected");
    // The account the player picked is still theirs: the header shows it after the refusal too.
    expect(accounts).toEqual([PLAYER]);
    expect((error as Error).message).toBe("Signature rejected by user");
    expect(listSubmissions()).toEqual([]);
    expect(postBodies(server)).toEqual([]);
  });

  it("a wallet error other than a refusal: nothing is recorded, the wallet's words are shown", async () => {
    installFakeServer();
    const wallet = signingWallet({
      eth_signTypedData_v4: () => {
        throw new RpcError(-32603, "Ledger device: locked");
      },
    });
    await expect(run(wallet)).rejects.toThrow("Signature failed: Ledger device: locked");
    expect(listSubmissions()).toEqual([]);
  });

  it.each([
    ["4200 (EIP-1193: unsupported method)", new RpcError(4200, "Unsupported method")],
    ["-32601 (method not found)", new RpcError(-32601, "The method eth_signTypedData_v4 does not exist")],
    ["an error saying so", new RpcError(-32603, "eth_signTypedData_v4 is not supported by this wallet")],
  ])("a wallet that cannot sign typed data, %s: says so, then pays by transaction", async (_case, failure) => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 9, status: "pending" }, 201));
    const wallet = signingWallet({
      eth_signTypedData_v4: () => {
        throw failure;
      },
    });
    const notes: string[] = [];
    const progress: string[] = [];
    const result = await run(wallet, { progress, onFallback: () => notes.push("fallback") });
    expect(notes).toEqual(["fallback"]);
    expect(progress).toEqual([
      PROGRESS.connecting,
      PROGRESS.selectAccount,
      SIGN_PROGRESS,
      FALLBACK_PROGRESS,
      PROGRESS.sending,
      PROGRESS.waiting,
      PROGRESS.confirmed,
      PROGRESS.submitting,
    ]);
    // The account was picked once; the transfer carries the same guess's commitment.
    expect(wallet.methods().filter((m) => m === "wallet_requestPermissions")).toHaveLength(1);
    const sent = wallet.calls.find((c) => c.method === "eth_sendTransaction");
    expect((sent?.params as { data: string }[])[0]?.data).toBe(vectors.calldata[0]!.data);
    expect(postBodies(server)).toEqual([expect.objectContaining({ transactionHash: TX_HASH })]);
    expect(postBodies(server)[0]).not.toHaveProperty("authorization");
    expect(result.paymentMethod).toBe("transfer");
    expect(listSubmissions()).toHaveLength(1);
    expect(listSubmissions()[0]).toMatchObject({ state: "submitted", transactionHash: TX_HASH });
    expect(listSubmissions()[0]).not.toHaveProperty("paymentMethod");
    expect(listSubmissions()[0]).not.toHaveProperty("authorization");
  });

  it("refused by the server with a code (422): marked refused, not posted again", async () => {
    const server = installFakeServer();
    const message = "This wallet does not hold enough USDC for the stake.";
    server.on("POST", "/api/responses", () => json({ message, errors: {}, code: "insufficient_balance" }, 422));
    const error = await run(signingWallet()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionError);
    expect(error).toMatchObject({ retrying: false, signed: true, message: `422: ${message}` });
    expect(listSubmissions()[0]).toMatchObject({ state: "refused", lastError: `422: ${message}` });
    expect(postBodies(server)).toHaveLength(1);
  });

  it.each([
    [503, { message: "Payment authorizations cannot be checked right now.", errors: {} }],
    [429, { message: "Request was throttled.", errors: {} }],
    [502, "<html>Bad gateway</html>"],
  ])(
    "an answer that may pass (%s): kept with its signature and posted again later by the keeper",
    async (status, body) => {
      const server = installFakeServer();
      server.on("POST", "/api/responses", () =>
        typeof body === "string" ? new Response(body, { status }) : json(body, status),
      );
      const error = await run(signingWallet()).catch((e: unknown) => e);
      expect(error).toMatchObject({ retrying: true, signed: true });
      const record = listSubmissions()[0]!;
      expect(record).toMatchObject({
        state: "post-failed",
        postAttempts: 1,
        authorization: { signature: SIGNED_VECTOR.signature },
      });
      // Deferred: the keeper does not post it again at once.
      expect(dueClaims([record])).toEqual([]);
      expect(dueClaims([record], Date.now() + 3000)).toEqual([record]);
    },
  );

  it("no answer at all: kept and posted again later", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => Promise.reject(new TypeError("Failed to fetch")));
    await expect(run(signingWallet())).rejects.toMatchObject({ retrying: true });
    expect(listSubmissions()[0]?.state).toBe("post-failed");
  });

  it("a token without transfer authorizations (409): nothing recorded, the page offers the transfer", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () =>
      json({ message: "This token does not accept payment authorizations.", errors: {} }, 409),
    );
    const error = await run(signingWallet()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationsNotAccepted);
    expect((error as Error).message).toBe("This token does not accept payment authorizations.");
    expect(listSubmissions()).toEqual([]);
  });

  it("another claim with this guess's authorization (409 already used): refused for good", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () =>
      json({ message: "This authorization has already been used for a submission.", errors: {} }, 409),
    );
    await expect(run(signingWallet())).rejects.toMatchObject({ retrying: false });
    expect(listSubmissions()[0]?.state).toBe("refused");
  });

  it("a token domain of another chain than the configured one is never signed", async () => {
    installFakeServer();
    const wallet = signingWallet();
    const error = await submitSignedGuess(GUESS, {
      provider: wallet,
      config: getPublicConfig(),
      payments: { ...PAYMENTS_OFFERED, token: { ...PAYMENTS_OFFERED.token!, chainId: 1 } },
      expectChainSwitch: () => undefined,
      now: () => NOW,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("Signature failed: the token is on chain 1, not 11155111");
    expect(wallet.methods()).not.toContain("eth_signTypedData_v4");
    expect(listSubmissions()).toEqual([]);
  });
});
