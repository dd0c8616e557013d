import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/api/http";
import { PLAYER, TX_HASH } from "../../test/fakeWallet";
import { installFakeServer, json } from "../../test/http";
import { signedRecord, SIGNED_VECTOR, submittedRecord } from "../../test/submissions";
import {
  deferClaim,
  keepClaims,
  markInFlight,
  postVerdict,
  RESOLVED_BEFORE_RECORDED,
  retryDelayMs,
  RETRY_MAX_MS,
  type KeepDeps,
} from "./keeper";
import { listSubmissions, saveSubmission, unpostedSubmissions, type StoredSubmission } from "./pending";

/** Keeping a paid claim until the server gives a definite answer. The network is scripted (stubbed
 * fetch); the chain is not read here (no provider): replacement.test.ts follows stakes on anvil. */

afterEach(() => vi.unstubAllGlobals());

const RECORD = submittedRecord({ state: "post-failed" });
const NOT_ACCEPTING = { message: "This challenge is not accepting submissions.", errors: {} };

function deps(over: Partial<KeepDeps> = {}): KeepDeps {
  return { isResolved: async () => false, provider: null, tokenAddress: "0x0", random: () => 0, ...over };
}

const posts = (server: ReturnType<typeof installFakeServer>) =>
  server.calls.filter((c) => c.init?.method === "POST").length;

describe("postVerdict", () => {
  const error = (status: number, body: unknown) => new ApiError(status, "x", body);
  it.each([
    ["no answer at all", new TypeError("Failed to fetch"), "retry"],
    ["500", error(500, "Internal Server Error"), "retry"],
    ["502 from a proxy", error(502, "<html>"), "retry"],
    ["429", error(429, { message: "Request was throttled." }), "retry"],
    ["403 before the CSRF cookie", error(403, { message: "CSRF Failed" }), "retry"],
    ["409 not accepting", error(409, NOT_ACCEPTING), "retry-unless-resolved"],
    [
      "409 already used",
      error(409, { message: "This transaction has already been used for a submission." }),
      "refused",
    ],
    ["404 no such challenge", error(404, { message: "Challenge not found." }), "refused"],
    ["400 malformed", error(400, { message: "Invalid input.", errors: {} }), "refused"],
    ["422 with a code", error(422, { message: "The payment ...", errors: {}, code: "wrong_sender" }), "refused"],
    ["422 without a code (not the API's)", error(422, "Unprocessable"), "retry"],
    [
      "409 authorization already used",
      error(409, { message: "This authorization has already been used for a submission." }),
      "refused",
    ],
    [
      "409 token without authorizations",
      error(409, { message: "This token does not accept payment authorizations." }),
      "refused",
    ],
    [
      "503 authorizations not checkable now",
      error(503, { message: "Payment authorizations cannot be checked right now." }),
      "retry",
    ],
  ])("%s: %s", (_case, err, verdict) => {
    expect(postVerdict(err)).toBe(verdict);
  });
});

describe("retryDelayMs", () => {
  it("doubles from 2 s up to a minute, with at most a fifth added at random", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => retryDelayMs(n, () => 0))).toEqual([
      2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect(retryDelayMs(1, () => 0.999)).toBeLessThanOrEqual(2400);
    expect(retryDelayMs(30, () => 0.999)).toBeLessThanOrEqual(RETRY_MAX_MS * 1.2);
  });
});

describe("keepClaims", () => {
  it("posts a kept claim again with a growing delay until the server stores it", async () => {
    const server = installFakeServer();
    const answers = [503, 503, 201];
    server.on("POST", "/api/responses", () => {
      const status = answers.shift() ?? 500;
      return status === 201 ? json({ id: 1, status: "pending" }, 201) : json({ message: "Unavailable." }, status);
    });
    saveSubmission(RECORD);
    let now = 0;
    const d = deps({ now: () => now });

    expect(await keepClaims(unpostedSubmissions(), d)).toEqual({ recorded: 0, refused: [] });
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", postAttempts: 1 });
    now = 1999;
    await keepClaims(unpostedSubmissions(), d);
    expect(posts(server)).toBe(1); // not before 2 s
    now = 2000;
    await keepClaims(unpostedSubmissions(), d);
    expect(posts(server)).toBe(2);
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", postAttempts: 2 });
    now = 5999;
    await keepClaims(unpostedSubmissions(), d);
    expect(posts(server)).toBe(2); // then 4 s
    now = 6000;
    expect(await keepClaims(unpostedSubmissions(), d)).toEqual({ recorded: 1, refused: [] });
    expect(listSubmissions()[0]?.state).toBe("submitted");
    expect(listSubmissions()[0]).not.toHaveProperty("lastError");
    expect(listSubmissions()[0]).not.toHaveProperty("postAttempts");
    expect(JSON.parse(server.calls[2]?.init?.body as string)).toEqual({
      challengeId: 7,
      submissionText: RECORD.text,
      submissionStake: RECORD.stake,
      transactionHash: TX_HASH,
      submitterAddress: PLAYER,
      submissionSalt: RECORD.salt,
    });
    expect(unpostedSubmissions()).toEqual([]);
  });

  it("keeps posting a claim the challenge turns away while it is not resolved, and stops once it is", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json(NOT_ACCEPTING, 409));
    saveSubmission(RECORD);
    const resolved = { now: false };
    let now = 0;
    const d = deps({ now: () => now, isResolved: async (id) => id === 7 && resolved.now });
    await keepClaims(unpostedSubmissions(), d);
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", postAttempts: 1 });
    resolved.now = true;
    now = 10_000;
    expect(await keepClaims(unpostedSubmissions(), d)).toEqual({ recorded: 0, refused: [RESOLVED_BEFORE_RECORDED] });
    expect(listSubmissions()[0]).toMatchObject({ state: "refused", lastError: RESOLVED_BEFORE_RECORDED });
    now = 100_000;
    await keepClaims(unpostedSubmissions(), d);
    expect(posts(server)).toBe(2);
  });

  it("posts again a claim an earlier page marked refused for a challenge that was only closed", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 1, status: "pending" }, 201));
    saveSubmission({ ...RECORD, state: "refused", lastError: "409: This challenge is not accepting submissions." });
    saveSubmission({
      ...RECORD,
      salt: "3".repeat(64),
      state: "refused",
      lastError: "409: This transaction has already been used for a submission.",
    });
    expect(await keepClaims(unpostedSubmissions(), deps())).toEqual({ recorded: 1, refused: [] });
    expect(posts(server)).toBe(1);
  });

  it.each([
    [409, { message: "This transaction has already been used for a submission.", errors: {} }],
    [404, { message: "Challenge not found.", errors: {} }],
    [422, { message: "The payment was made for a different challenge.", errors: {}, code: "challenge_mismatch" }],
  ])("stops on a definite refusal (%i) and says why", async (status, body) => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json(body, status));
    saveSubmission(RECORD);
    const result = await keepClaims(unpostedSubmissions(), deps());
    expect(result.refused).toEqual([`${status}: ${body.message}`]);
    expect(listSubmissions()[0]).toMatchObject({ state: "refused", lastError: `${status}: ${body.message}` });
    await keepClaims(unpostedSubmissions(), deps({ now: () => 1e12 }));
    expect(posts(server)).toBe(1);
  });

  it("retries when the network gives no answer at all", async () => {
    installFakeServer().on("POST", "/api/responses", () => {
      throw new TypeError("Failed to fetch");
    });
    saveSubmission(RECORD);
    await keepClaims(unpostedSubmissions(), deps());
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", lastError: "Failed to fetch" });
  });

  it("leaves alone a claim whose payment flow runs in this page, and one deferred by the flow", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 1, status: "pending" }, 201));
    const confirmed: StoredSubmission = { ...RECORD, state: "confirmed" };
    saveSubmission(confirmed);
    markInFlight(RECORD.salt, true);
    await keepClaims(unpostedSubmissions(), deps());
    expect(posts(server)).toBe(0);
    markInFlight(RECORD.salt, false);
    deferClaim(RECORD.salt, 2000, 0);
    await keepClaims(unpostedSubmissions(), deps({ now: () => 1000 }));
    expect(posts(server)).toBe(0);
    await keepClaims(unpostedSubmissions(), deps({ now: () => 2000 }));
    expect(posts(server)).toBe(1);
  });

  it("posts a sent claim at once when no wallet can say whether it was mined (the server verifies it)", async () => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json({ id: 1, status: "pending" }, 201));
    saveSubmission({ ...RECORD, state: "sent" });
    expect(await keepClaims(unpostedSubmissions(), deps())).toEqual({ recorded: 1, refused: [] });
    expect(posts(server)).toBe(1);
  });
});

describe("keepClaims, a stake paid by signature (docs/protocol.md 3.3a)", () => {
  const SIGNED = signedRecord({ state: "post-failed" });

  it("posts the authorization in place of a transaction hash until the server stores it, also after a 503", async () => {
    const server = installFakeServer();
    const answers = [503, 201];
    server.on("POST", "/api/responses", () => {
      const status = answers.shift() ?? 500;
      return status === 201
        ? json({ id: 1, status: "pending", transactionHash: null }, 201)
        : json({ message: "Payment authorizations cannot be checked right now.", errors: {} }, status);
    });
    saveSubmission(SIGNED);
    let now = 0;
    const d = deps({ now: () => now });
    expect(await keepClaims(unpostedSubmissions(), d)).toEqual({ recorded: 0, refused: [] });
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", postAttempts: 1 });
    now = 2000;
    expect(await keepClaims(unpostedSubmissions(), d)).toEqual({ recorded: 1, refused: [] });
    const bodies = server.calls.map((c) => JSON.parse(c.init?.body as string));
    expect(bodies[1]).toEqual({
      challengeId: SIGNED.challengeId,
      submissionText: SIGNED.text,
      submissionStake: SIGNED.stake,
      submitterAddress: SIGNED.submitterAddress,
      submissionSalt: SIGNED.salt,
      authorization: {
        validAfter: 0,
        validBefore: SIGNED_VECTOR.message.validBefore,
        signature: SIGNED_VECTOR.signature,
      },
    });
    // From now on "Send it yourself" counts the minute from here.
    expect(listSubmissions()[0]).toMatchObject({ state: "submitted", postedAt: 2000 });
    expect(unpostedSubmissions()).toEqual([]);
  });

  it.each([
    [
      422,
      {
        message: "The payment authorization has expired, or is valid for longer than Geopoem accepts; sign a new one.",
        errors: {},
        code: "authorization_window",
      },
    ],
    [409, { message: "This token does not accept payment authorizations.", errors: {} }],
  ])("stops on a definite refusal (%i)", async (status, body) => {
    const server = installFakeServer();
    server.on("POST", "/api/responses", () => json(body, status));
    saveSubmission(SIGNED);
    expect((await keepClaims(unpostedSubmissions(), deps())).refused).toEqual([`${status}: ${body.message}`]);
    expect(listSubmissions()[0]).toMatchObject({ state: "refused" });
    await keepClaims(unpostedSubmissions(), deps({ now: () => 1e12 }));
    expect(server.calls).toHaveLength(1);
  });

  it("keeps only what can be posted: a signed claim not yet recorded, never one without its signature", () => {
    saveSubmission(signedRecord({ salt: "1".repeat(64), state: "signed" }));
    saveSubmission(signedRecord({ salt: "2".repeat(64), state: "post-failed" }));
    saveSubmission(signedRecord({ salt: "3".repeat(64), state: "submitted" }));
    saveSubmission(signedRecord({ salt: "4".repeat(64), state: "refused" }));
    const unsigned = signedRecord({ salt: "5".repeat(64), state: "prepared" });
    saveSubmission({ ...unsigned, authorization: { ...unsigned.authorization!, signature: undefined } });
    expect(unpostedSubmissions().map((r) => r.salt[0])).toEqual(["2", "1"]);
  });
});
