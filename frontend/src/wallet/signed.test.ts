import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PaymentsAuthorization, TokenDomain } from "@/api/types";
import { getPublicConfig } from "@/config";
import { toTerms } from "@/lib/pot/calls";
import { stakeNonce, termsDigest } from "@/lib/protocol/encoding";
import { json } from "../../test/http";
import { RpcError } from "../../test/fakeWallet";
import { openChallenge, startPotChain, type OpenedChallenge, type PotChain } from "../../test/pot";
import { anvilWallet, installPotConfig, payerEvents, serveSite, SITE_CHAIN_ID, type FakeSite } from "../../test/site";
import { guessFor, progressLog } from "../../test/stakes";
import { PROGRESS } from "./flow";
import { listStakes } from "./pending";
import { RELAY_PROGRESS, SIGN_PROGRESS, StakeNotStored, submitBySignature } from "./signed";

/** The stake by signature against the real pot on anvil: the ReceiveWithAuthorization the wallet
 * signs must be one the token and the pot take (the fake site's relayer sends it for real), the POST
 * carries no guess, and the record is kept before the wallet is asked. */

let chain: PotChain;
let opened: OpenedChallenge;
let site: FakeSite;

beforeAll(async () => {
  chain = await startPotChain({ chainId: SITE_CHAIN_ID });
  opened = await openChallenge(chain);
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

beforeEach(async () => {
  installPotConfig(chain);
  site = await serveSite(chain, opened);
});

function options(wallet = anvilWallet(chain), extra: object = {}) {
  const payments: PaymentsAuthorization & { token: TokenDomain } = {
    token: { name: "Test USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc },
    relay: { available: true, reason: "", address: chain.operator },
    validitySeconds: 1800,
    minRemainingSeconds: 60,
  };
  return {
    provider: wallet,
    config: getPublicConfig(),
    expectChainSwitch: () => undefined,
    sleep: () => Promise.resolve(),
    payments,
    now: () => Math.floor(Date.now() / 1000),
    ...extra,
  };
}

describe("a stake by signature, relayed by Geopoem", () => {
  it("signs the stake nonce to the pot, keeps the record first, and posts the signature without the guess", async () => {
    const wallet = anvilWallet(chain);
    let recordWhenAsked: unknown = null;
    const sign = wallet.handlers.eth_signTypedData_v4!;
    wallet.handlers.eth_signTypedData_v4 = (params) => {
      recordWhenAsked ??= listStakes()[0] ?? null;
      return sign(params);
    };
    const guess = guessFor(site.challenge, "29.9753, 31.1378", "2.5");
    const log = progressLog();
    const result = await submitBySignature(guess, options(wallet, { onProgress: log.onProgress }));

    const record = result.record;
    const expectedNonce = await stakeNonce({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: BigInt(opened.id),
      termsDigest: await termsDigest(BigInt(opened.id), toTerms(opened.terms)),
      commitment: record.commitment,
      amount: 2_500_000n,
    });
    expect(record.authorization?.nonce).toBe(`0x${expectedNonce}`);
    expect(recordWhenAsked).toMatchObject({
      salt: guess.salt,
      state: "prepared",
      authorization: { nonce: `0x${expectedNonce}` },
    });
    const [, typed] = wallet.calls.find((c) => c.method === "eth_signTypedData_v4")!.params as [string, string];
    expect(JSON.parse(typed)).toMatchObject({
      primaryType: "ReceiveWithAuthorization",
      message: { from: chain.player, to: chain.pot, value: "2500000", validAfter: "0", nonce: `0x${expectedNonce}` },
    });
    expect(site.posted.stakes).toEqual([
      {
        challengeId: opened.id,
        submitterAddress: chain.player,
        submissionStake: "2.5",
        commitment: record.commitment,
        authorization: {
          validAfter: 0,
          validBefore: record.authorization!.validBefore,
          signature: record.authorization!.signature,
        },
      },
    ]);
    // The fake site's relayer sent it, and the pot took it: the signature binds this very stake.
    const events = await payerEvents(chain, opened.id, chain.player);
    expect(events.find((e) => e.kind === "Staked" && e.commitment === record.commitment)).toMatchObject({
      amount: 2_500_000n,
    });
    expect(listStakes()[0]).toMatchObject({ state: "relayed", paymentMethod: "authorization" });
    expect(log.messages).toEqual([PROGRESS.connecting, PROGRESS.selectAccount, SIGN_PROGRESS, RELAY_PROGRESS]);
    expect(site.posted.guesses).toEqual([]);
  });

  it("keeps a signed stake to post again when Geopoem does not answer, and marks one it refuses", async () => {
    site.stakeAnswer = () => json({ message: "Service unavailable.", errors: {} }, 503);
    const delayed = await submitBySignature(guessFor(site.challenge, "3, 3", "1"), options()).catch((e: unknown) => e);
    expect(delayed).toBeInstanceOf(StakeNotStored);
    expect((delayed as StakeNotStored).retrying).toBe(true);
    expect(listStakes()[0]).toMatchObject({ state: "signed", postAttempts: 1 });

    site.stakeAnswer = () =>
      json(
        {
          message: "The USDC token is paused by its issuer, so no USDC can move right now; try again later.",
          errors: {},
          code: "token_paused",
        },
        422,
      );
    const refused = await submitBySignature(guessFor(site.challenge, "4, 4", "1"), options()).catch((e: unknown) => e);
    expect((refused as StakeNotStored).retrying).toBe(false);
    // No HTTP status in a player's text.
    expect(listStakes()[0]).toMatchObject({
      state: "refused",
      lastError: "The USDC token is paused by its issuer, so no USDC can move right now; try again later.",
    });
  });

  it("keeps nothing when the signature is refused in the wallet", async () => {
    const wallet = anvilWallet(chain, chain.player, {
      eth_signTypedData_v4: () => {
        throw new RpcError(4001, "User rejected.");
      },
    });
    await expect(submitBySignature(guessFor(site.challenge), options(wallet))).rejects.toMatchObject({
      kind: "signatureRejected",
    });
    expect(listStakes()).toEqual([]);
    expect(site.posted.stakes).toEqual([]);
  });
});

describe("a stake by signature sent from the player's wallet", () => {
  it("sends stakeWithAuthorization itself: nothing is posted, the stake is in the pot", async () => {
    const wallet = anvilWallet(chain, chain.other);
    const log = progressLog();
    const result = await submitBySignature(
      guessFor(site.challenge, "5, 5", "1.25"),
      options(wallet, { sender: "self", onProgress: log.onProgress }),
    );
    expect(site.posted.stakes).toEqual([]);
    const staked = (await payerEvents(chain, opened.id, chain.other)).find(
      (e) => e.kind === "Staked" && e.commitment === result.record.commitment,
    );
    expect(staked).toMatchObject({ amount: 1_250_000n });
    expect(listStakes()[0]).toMatchObject({
      state: "staked",
      seq: staked?.kind === "Staked" ? staked.seq : -1,
      selfSent: { state: "mined" },
    });
    expect(log.messages.slice(-3)).toEqual([PROGRESS.sending, PROGRESS.waiting, PROGRESS.confirmed]);
  });
});

describe("a wallet that cannot sign typed data", () => {
  it("pays by approval instead, after saying so", async () => {
    const wallet = anvilWallet(chain, chain.player, {
      eth_signTypedData_v4: () => {
        throw new RpcError(4200, "The requested method is not supported by this Ethereum provider.");
      },
    });
    let said = false;
    const result = await submitBySignature(
      guessFor(site.challenge, "6, 6", "1"),
      options(wallet, { onFallback: () => (said = true) }),
    );
    expect(said).toBe(true);
    expect(result.paymentMethod).toBe("approval");
    expect(listStakes()[0]).toMatchObject({ paymentMethod: "approval", state: "staked" });
    expect(site.posted.stakes).toEqual([]);
  });
});
