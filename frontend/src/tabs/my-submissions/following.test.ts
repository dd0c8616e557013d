import { describe, expect, it } from "vitest";
import { ApiError } from "@/api/http";
import { FOLLOW_INTERVAL_MS } from "@/api/queries";
import type { Stake } from "@/api/types";
import {
  BEFORE_DEEP_FOLLOW_MS,
  stakeFollowInterval,
  deepBlock,
  FAST_FOLLOW_MS,
  FAST_FOLLOW_WINDOW_MS,
  followPlan,
  HEAD_POLL_MS,
  planAt,
} from "./following";

const answer = (status: Stake["status"]) => ({ status }) as Stake;
const missing = new ApiError(404, "No stake has this commitment.", {});

describe("stakeFollowInterval", () => {
  it("follows a stake Geopoem relays or that is pending, and one handed over that it does not know yet", () => {
    expect(stakeFollowInterval(answer("relaying"), null, true)).toBe(FOLLOW_INTERVAL_MS);
    expect(stakeFollowInterval(answer("pending"), null, true)).toBe(FOLLOW_INTERVAL_MS);
    expect(stakeFollowInterval(undefined, missing, true)).toBe(FOLLOW_INTERVAL_MS);
  });

  it("stops once confirmed, refused or failed, before it was handed over, and on other errors", () => {
    expect(stakeFollowInterval(answer("confirmed"), null, true)).toBe(false);
    expect(stakeFollowInterval(answer("refused"), null, true)).toBe(false);
    expect(stakeFollowInterval(answer("failed"), null, true)).toBe(false);
    expect(stakeFollowInterval(undefined, missing, false)).toBe(false);
    expect(stakeFollowInterval(undefined, new ApiError(500, "Boom.", {}), true)).toBe(false);
  });
});

describe("followPlan: the head-driven schedule", () => {
  // Included in block 16 with 2 confirmations: block 17 makes the payment deep enough.
  const clock = { head: 16, inclusionBlock: 16, confirmations: 2, sinceDeepMs: null, visible: true };

  it("names the deep-enough block: the receipt's block counts as the first confirmation", () => {
    expect(deepBlock(16, 2)).toBe(17);
    expect(deepBlock(16, 1)).toBe(16);
  });

  it("before the deep-enough block: watches the head every HEAD_POLL_MS and asks the status slowly", () => {
    expect(followPlan(clock)).toEqual({ statusMs: BEFORE_DEEP_FOLLOW_MS, headMs: HEAD_POLL_MS });
    expect(BEFORE_DEEP_FOLLOW_MS).toBeGreaterThanOrEqual(FOLLOW_INTERVAL_MS);
  });

  it("does not watch the head while the tab is hidden", () => {
    expect(followPlan({ ...clock, visible: false }).headMs).toBe(false);
  });

  it("from the deep-enough block: asks quickly for a bounded window, then plainly; the head is no longer watched", () => {
    expect(followPlan({ ...clock, head: 17 })).toEqual({ statusMs: FAST_FOLLOW_MS, headMs: false });
    expect(followPlan({ ...clock, head: 17, sinceDeepMs: 0 })).toEqual({ statusMs: FAST_FOLLOW_MS, headMs: false });
    expect(followPlan({ ...clock, head: 18, sinceDeepMs: FAST_FOLLOW_WINDOW_MS })).toEqual({
      statusMs: FAST_FOLLOW_MS,
      headMs: false,
    });
    expect(followPlan({ ...clock, head: 19, sinceDeepMs: FAST_FOLLOW_WINDOW_MS + 1 })).toEqual({
      statusMs: FOLLOW_INTERVAL_MS,
      headMs: false,
    });
    expect(FAST_FOLLOW_MS).toBeLessThan(FOLLOW_INTERVAL_MS);
  });

  it("plain polling without a head (no wallet, an error, another chain), an inclusion block or a number of confirmations", () => {
    expect(followPlan({ ...clock, head: null })).toEqual({ statusMs: FOLLOW_INTERVAL_MS, headMs: HEAD_POLL_MS });
    expect(followPlan({ ...clock, inclusionBlock: undefined })).toEqual({
      statusMs: FOLLOW_INTERVAL_MS,
      headMs: false,
    });
    expect(followPlan({ ...clock, confirmations: 0 })).toEqual({ statusMs: FOLLOW_INTERVAL_MS, headMs: false });
  });

  it("planAt measures the window from when the page saw the deep-enough block", () => {
    const watch = { head: 17, deepAt: 1_000_000, visible: true };
    expect(planAt(watch, 16, 2, 1_000_000 + 5_000).statusMs).toBe(FAST_FOLLOW_MS);
    expect(planAt(watch, 16, 2, 1_000_000 + 7_000).statusMs).toBe(FOLLOW_INTERVAL_MS);
    expect(planAt({ head: 16, deepAt: null, visible: true }, 16, 2).statusMs).toBe(BEFORE_DEEP_FOLLOW_MS);
  });

  it("a pending stake follows the plan's interval; a confirmed one stops", () => {
    expect(stakeFollowInterval(answer("pending"), null, true, FAST_FOLLOW_MS)).toBe(FAST_FOLLOW_MS);
    expect(stakeFollowInterval(answer("confirmed"), null, true, FAST_FOLLOW_MS)).toBe(false);
    expect(stakeFollowInterval(undefined, missing, true, FAST_FOLLOW_MS)).toBe(FOLLOW_INTERVAL_MS);
  });
});
