import { describe, expect, it } from "vitest";
import type { Stake } from "@/api/types";
import { getPublicConfig } from "@/config";
import { json } from "../../test/http";
import { anvilWallet, sitePayments, withPotSite } from "../../test/site";
import { guessFor } from "../../test/stakes";
import { ApiError } from "@/api/http";
import { FOLLOW_MS, guessPostVerdict, keepStakes, resetKeeperForTests, RETRY_FIRST_MS } from "./keeper";
import { listStakes, updateStake } from "./pending";
import { submitBySignature } from "./signed";

/** Keeping a stake until Geopoem holds its guess: the guess is posted only once the stake is
 * confirmed in the pot, again on answers that may pass, and never again after a final one. */

let clock = Date.now();
const now = () => clock;
const world = withPotSite();

async function stakeStatus(commitment: string): Promise<Stake | null> {
  const res = await fetch(`/api/responses/${commitment}`);
  return res.status === 404 ? null : ((await res.json()) as Stake);
}

const deps = { stakeStatus, now, random: () => 0 };

async function relayedStake(text: string) {
  const config = getPublicConfig();
  const result = await submitBySignature(guessFor(world.site.challenge, text, "1"), {
    provider: anvilWallet(world.chain),
    config,
    expectChainSwitch: () => undefined,
    payments: sitePayments(world.chain),
  });
  return result.record;
}

describe("the guess of a relayed stake", () => {
  it("waits until the stake is confirmed in the pot, then posts the guess and its salt", async () => {
    const record = await relayedStake("10, 10");
    // In the pot, one block deep: pending.
    let result = await keepStakes(listStakes(), deps);
    expect(result.guesses).toBe(0);
    expect(world.site.posted.guesses).toEqual([]);
    expect(listStakes()[0]).toMatchObject({ seq: expect.any(Number), guess: { state: "waiting" } });

    // Not looked at again before its delay.
    await world.chain.anvil.rpc("evm_mine", []);
    result = await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toEqual([]);

    clock += FOLLOW_MS;
    result = await keepStakes(listStakes(), deps);
    expect(result.guesses).toBe(1);
    expect(world.site.posted.guesses).toEqual([
      {
        challengeId: world.opened.id,
        submitterAddress: world.chain.player,
        commitment: record.commitment,
        submissionText: "10, 10",
        submissionSalt: record.salt,
      },
    ]);
    expect(world.site.guesses.get(record.commitment)).toEqual({ text: "10, 10", salt: record.salt });
    expect(listStakes()[0]).toMatchObject({ guess: { state: "received" } });

    // Done: never posted again.
    clock += 120_000;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(1);
  });

  it("posts again with a growing delay while the answers may pass, also after a reload", async () => {
    await relayedStake("11, 11");
    await world.chain.anvil.rpc("evm_mine", []);
    world.site.guessAnswer = () => json({ message: "Service unavailable.", errors: {} }, 503);
    clock += 60_000;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(1);
    expect(listStakes()[0]!.guess).toMatchObject({ state: "waiting", attempts: 1, lastError: "Service unavailable." });

    clock += RETRY_FIRST_MS - 1;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(1);
    clock += 1;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(2);
    expect(listStakes()[0]!.guess.attempts).toBe(2);

    // A reload forgets the delays: the guess is posted at once, and now Geopoem takes it.
    resetKeeperForTests();
    world.site.guessAnswer = null;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(3);
    expect(listStakes()[0]!.guess.state).toBe("received");
  });

  it("stops on guess_window_closing and on a refusal", async () => {
    const closing = await relayedStake("12, 12");
    await world.chain.anvil.rpc("evm_mine", []);
    world.site.guessAnswer = () =>
      json({ message: "The guess window ends too soon.", errors: {}, code: "guess_window_closing" }, 409);
    clock += 60_000;
    await keepStakes(listStakes(), deps);
    expect(listStakes().find((r) => r.salt === closing.salt)!.guess.state).toBe("closing");

    const refused = await relayedStake("13, 13");
    await world.chain.anvil.rpc("evm_mine", []);
    // A salt that does not open the commitment: the real check of the fake site answers 422.
    updateStake(refused.salt, { text: "14, 14" });
    world.site.guessAnswer = null;
    clock += 60_000;
    await keepStakes(listStakes(), deps);
    expect(listStakes().find((r) => r.salt === refused.salt)!.guess).toMatchObject({
      state: "refused",
      lastError: "This guess and salt do not open that stake's commitment.",
    });
    const posts = world.site.posted.guesses.length;
    clock += 600_000;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.guesses).toHaveLength(posts);
  });
});

describe("what a guess's 409 means", () => {
  it("is told by the code the API sends, not by its sentence", () => {
    const conflict = (body: unknown) => new ApiError(409, "Conflict", body);
    const closing = { message: "The guess window ends too soon.", errors: {}, code: "guess_window_closing" };
    expect(guessPostVerdict(conflict(closing))).toBe("closing");
    expect(guessPostVerdict(conflict({ ...closing, message: "Reveal it from your wallet now." }))).toBe("closing");
    const pending = { message: "This stake is not confirmed in the pot yet.", code: "stake_not_confirmed" };
    expect(guessPostVerdict(conflict(pending))).toBe("retry");
    // The words "guess window" without the code decide nothing: it may pass.
    expect(guessPostVerdict(conflict({ message: "The guess window ends too soon.", errors: {} }))).toBe("retry");
  });
});

describe("a signed stake Geopoem has not stored", () => {
  it("is posted again until Geopoem stores it", async () => {
    world.site.stakeAnswer = () => json({ message: "Service unavailable.", errors: {} }, 503);
    await relayedStake("15, 15").catch(() => undefined);
    expect(listStakes()[0]).toMatchObject({ state: "signed", postAttempts: 1 });
    world.site.stakeAnswer = null;
    clock += 60_000;
    const result = await keepStakes(listStakes(), deps);
    expect(result.relayed).toBe(1);
    expect(listStakes()[0]!.state).toBe("relayed");
    expect(world.site.posted.stakes).toHaveLength(2);
    expect(world.site.posted.stakes[1]).not.toHaveProperty("submissionText");
  });

  it("is never handed to Geopoem's relayer when the player chose to send it themselves", async () => {
    world.site.stakeAnswer = () => json({ message: "Service unavailable.", errors: {} }, 503);
    const record = await relayedStake("16, 16").catch(() => listStakes()[0]!);
    updateStake(record.salt, { selfSent: { state: "sent", hash: `0x${"5".repeat(64)}` } });
    world.site.stakeAnswer = null;
    clock += 60_000;
    await keepStakes(listStakes(), deps);
    expect(world.site.posted.stakes).toHaveLength(1);
  });
});
