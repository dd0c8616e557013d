import { describe, expect, it } from "vitest";
import { getPublicConfig } from "@/config";
import { toTerms } from "@/lib/pot/calls";
import { stakeNonce, termsDigest } from "@/lib/protocol/encoding";
import { json } from "../../test/http";
import { RpcError } from "../../test/fakeWallet";
import { anvilWallet, payerEvents, sitePayments, withPotSite } from "../../test/site";
import { guessFor, progressLog } from "../../test/stakes";
import { PROGRESS } from "./flow";
import { listStakes } from "./pending";
import { RELAY_PROGRESS, SIGN_PROGRESS, StakeNotStored, submitBySignature } from "./signed";

/** The stake by signature against the real pot on anvil: the ReceiveWithAuthorization the wallet
 * signs must be one the token and the pot take (the fake site's relayer sends it for real), the POST
 * carries no guess, and the record is kept before the wallet is asked. */

const world = withPotSite();

const options = (wallet = anvilWallet(world.chain), extra: object = {}) => ({
  provider: wallet,
  config: getPublicConfig(),
  expectChainSwitch: () => undefined,
  sleep: () => Promise.resolve(),
  payments: sitePayments(world.chain),
  now: () => Math.floor(Date.now() / 1000),
  ...extra,
});

describe("a stake by signature, relayed by Geopoem", () => {
  it("signs the stake nonce to the pot, keeps the record first, and posts the signature without the guess", async () => {
    const wallet = anvilWallet(world.chain);
    let recordWhenAsked: unknown = null;
    const sign = wallet.handlers.eth_signTypedData_v4!;
    wallet.handlers.eth_signTypedData_v4 = (params) => {
      recordWhenAsked ??= listStakes()[0] ?? null;
      return sign(params);
    };
    const guess = guessFor(world.site.challenge, "29.9753, 31.1378", "2.5");
    const log = progressLog();
    const result = await submitBySignature(guess, options(wallet, { onProgress: log.onProgress }));

    const record = result.record;
    const expectedNonce = await stakeNonce({
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: BigInt(world.opened.id),
      termsDigest: await termsDigest(BigInt(world.opened.id), toTerms(world.opened.terms)),
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
      message: {
        from: world.chain.player,
        to: world.chain.pot,
        value: "2500000",
        validAfter: "0",
        nonce: `0x${expectedNonce}`,
      },
    });
    expect(world.site.posted.stakes).toEqual([
      {
        challengeId: world.opened.id,
        submitterAddress: world.chain.player,
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
    const events = await payerEvents(world.chain, world.opened.id, world.chain.player);
    expect(events.find((e) => e.kind === "Staked" && e.commitment === record.commitment)).toMatchObject({
      amount: 2_500_000n,
    });
    expect(listStakes()[0]).toMatchObject({ state: "relayed", paymentMethod: "authorization" });
    expect(log.messages).toEqual([PROGRESS.connecting, PROGRESS.selectAccount, SIGN_PROGRESS, RELAY_PROGRESS]);
    expect(world.site.posted.guesses).toEqual([]);
  });

  it("keeps a signed stake to post again when Geopoem does not answer, and marks one it refuses", async () => {
    world.site.stakeAnswer = () => json({ message: "Service unavailable.", errors: {} }, 503);
    const delayed = await submitBySignature(guessFor(world.site.challenge, "3, 3", "1"), options()).catch(
      (e: unknown) => e,
    );
    expect(delayed).toBeInstanceOf(StakeNotStored);
    expect((delayed as StakeNotStored).retrying).toBe(true);
    expect(listStakes()[0]).toMatchObject({ state: "signed", postAttempts: 1 });

    world.site.stakeAnswer = () =>
      json(
        {
          message: "The USDC token is paused by its issuer, so no USDC can move right now; try again later.",
          errors: {},
          code: "token_paused",
        },
        422,
      );
    const refused = await submitBySignature(guessFor(world.site.challenge, "4, 4", "1"), options()).catch(
      (e: unknown) => e,
    );
    expect((refused as StakeNotStored).retrying).toBe(false);
    // No HTTP status in a player's text.
    expect(listStakes()[0]).toMatchObject({
      state: "refused",
      lastError: "The USDC token is paused by its issuer, so no USDC can move right now; try again later.",
    });
  });

  it("keeps nothing when the signature is refused in the wallet", async () => {
    const wallet = anvilWallet(world.chain, world.chain.player, {
      eth_signTypedData_v4: () => {
        throw new RpcError(4001, "User rejected.");
      },
    });
    await expect(submitBySignature(guessFor(world.site.challenge), options(wallet))).rejects.toMatchObject({
      kind: "signatureRejected",
    });
    expect(listStakes()).toEqual([]);
    expect(world.site.posted.stakes).toEqual([]);
  });
});

describe("a stake by signature sent from the player's wallet", () => {
  it("sends stakeWithAuthorization itself: nothing is posted, the stake is in the pot", async () => {
    const wallet = anvilWallet(world.chain, world.chain.other);
    const log = progressLog();
    const result = await submitBySignature(
      guessFor(world.site.challenge, "5, 5", "1.25"),
      options(wallet, { sender: "self", onProgress: log.onProgress }),
    );
    expect(world.site.posted.stakes).toEqual([]);
    const staked = (await payerEvents(world.chain, world.opened.id, world.chain.other)).find(
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
    const wallet = anvilWallet(world.chain, world.chain.player, {
      eth_signTypedData_v4: () => {
        throw new RpcError(4200, "The requested method is not supported by this Ethereum provider.");
      },
    });
    let said = false;
    const result = await submitBySignature(
      guessFor(world.site.challenge, "6, 6", "1"),
      options(wallet, { onFallback: () => (said = true) }),
    );
    expect(said).toBe(true);
    expect(result.paymentMethod).toBe("approval");
    expect(listStakes()[0]).toMatchObject({ paymentMethod: "approval", state: "staked" });
    expect(world.site.posted.stakes).toEqual([]);
  });
});
