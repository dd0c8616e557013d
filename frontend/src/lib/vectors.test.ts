import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { guessCommitment, newSalt, SALT_PATTERN, sha256Bytes, solutionCommitment, termsSha256 } from "./commitment";
import { canonicalCoordinates, COORDINATES_MESSAGE } from "./coordinates";
import { decimalToUnits, MIN_STAKE_MESSAGE, parseStake } from "./stake";
import {
  AUTHORIZATION_CANCELED_TOPIC,
  AUTHORIZATION_USED_TOPIC,
  authorizationRule,
  authorizationUse,
  decodeRelayedCall,
  TERMS_ANCHORED_TOPIC,
  TRANSFER_WITH_AUTHORIZATION_SELECTOR,
} from "./verify-outcomes";

// The same file the Python tests read (tests/test_vectors.py): the two implementations agree.

describe("coordinates (shared vectors)", () => {
  it.each(vectors.coordinates.valid)("canonicalises $input", ({ input, canonical }) => {
    expect(canonicalCoordinates(input)).toBe(canonical);
  });

  it.each(vectors.coordinates.invalid.map((input) => ({ input })))("refuses $input", ({ input }) => {
    expect(canonicalCoordinates(input)).toBeNull();
  });

  it("refuses over-long input and keeps the spec's sentence", () => {
    expect(canonicalCoordinates(`1${"0".repeat(120)}, 2`)).toBeNull();
    expect(COORDINATES_MESSAGE).toBe("Please enter valid coordinates in the format: latitude, longitude");
  });
});

describe("stakes (shared vectors)", () => {
  it.each(vectors.stakes.valid)("parses $input", ({ input, amount, units }) => {
    const result = parseStake(input, { maximum: "1000000" });
    expect(result).toEqual({ ok: true, amount, units: BigInt(units) });
  });

  it.each(vectors.stakes.invalid)("refuses $input", ({ input, message }) => {
    const result = parseStake(input, { maximum: "1000000" });
    expect(result.ok).toBe(false);
    if (!result.ok && message !== null) expect(result.message).toBe(message);
    if (!result.ok && message === null) expect(result.reason).toBe("format");
  });

  it("refuses more than the configured maximum", () => {
    expect(parseStake("1000000.01", { maximum: "1000000" })).toMatchObject({
      ok: false,
      message: "Maximum stake amount is 1000000 USDC",
    });
    expect(MIN_STAKE_MESSAGE).toBe("Minimum stake amount is 1.00 USDC");
  });
});

describe("commitments (shared vectors)", () => {
  it.each(vectors.guessCommitments)("guess commitment for $text", async (v) => {
    expect(await guessCommitment(v)).toBe(v.commitment);
  });

  it.each(vectors.solutionCommitments)("solution commitment for $text", async (v) => {
    expect(await solutionCommitment(v)).toBe(v.commitment);
  });

  it("makes a fresh 32-byte salt each time", () => {
    const a = newSalt();
    expect(a).toMatch(SALT_PATTERN);
    expect(newSalt()).not.toBe(a);
  });
});

describe("the terms on chain (shared vectors)", () => {
  it("knows the TermsAnchored topic", () => {
    expect(vectors.anchor.eventSignature).toBe("TermsAnchored(uint256,bytes32,bytes32,uint64,uint32)");
    expect(TERMS_ANCHORED_TOPIC).toBe(vectors.anchor.topic);
  });

  it.each(vectors.anchor.terms)("terms hash of challenge $challengeId", async (v) => {
    expect(await termsSha256(v)).toBe(v.termsSha256);
  });

  it.each(vectors.anchor.terms)("terms hash of challenge $challengeId without Web Crypto", async (v) => {
    // Outside a secure context the page hashes with its own SHA-256: the same answer.
    const subtle = Object.getOwnPropertyDescriptor(globalThis.crypto, "subtle");
    Object.defineProperty(globalThis.crypto, "subtle", { value: undefined, configurable: true });
    try {
      expect(await termsSha256(v)).toBe(v.termsSha256);
    } finally {
      if (subtle) Object.defineProperty(globalThis.crypto, "subtle", subtle);
    }
    expect(sha256Bytes(new Uint8Array()).length).toBe(32);
  });
});

describe("stakes paid by authorization (shared vectors)", () => {
  const section = vectors.authorization;

  it("writes in the keccak of the events and the function the vectors name", async () => {
    const { id } = await import("ethers");
    expect(AUTHORIZATION_USED_TOPIC).toBe(section.usedTopic);
    expect(id(section.usedEvent)).toBe(section.usedTopic);
    expect(AUTHORIZATION_CANCELED_TOPIC).toBe(section.canceledTopic);
    expect(id(section.canceledEvent)).toBe(section.canceledTopic);
    expect(`0x${TRANSFER_WITH_AUTHORIZATION_SELECTOR}`).toBe(section.selector);
    expect(id(section.function).slice(0, 10)).toBe(section.selector);
  });

  it.each(section.relayedCalls)("reads the relayed call: $about", ({ data, decoded }) => {
    const call = decodeRelayedCall(data);
    expect(
      call && {
        authorizer: call.authorizer,
        recipient: call.recipient,
        amountUnits: call.amountUnits.toString(),
        validAfter: Number(call.validAfter),
        validBefore: Number(call.validBefore),
        nonce: call.nonce,
        challengeId: call.challengeId === null ? null : Number(call.challengeId),
      },
    ).toEqual(decoded);
  });

  it.each(section.pairing)("pairs: $about", ({ receipt, authorizer, nonce, used, transfer }) => {
    const use = authorizationUse(receipt, { usdc: section.usdc, authorizer, nonce });
    expect([use?.logIndex ?? null, use?.transfer?.logIndex ?? null]).toEqual([used, transfer]);
  });

  it.each(section.rules)("judges: $about", (rule) => {
    const { claim } = rule;
    const use = rule.receipt
      ? authorizationUse(rule.receipt, { usdc: section.usdc, authorizer: claim.address, nonce: claim.commitment })
      : null;
    const code = authorizationRule({
      use,
      cancelled: rule.cancelled,
      validBefore: claim.validBefore,
      headTime: rule.headTime,
      address: claim.address,
      stakeUnits: decimalToUnits(claim.stake),
      treasury: section.treasury,
      mined: use ? rule.blockTime : null,
      window: rule.window,
    });
    expect(code).toBe(rule.code);
  });
});
