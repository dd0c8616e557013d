import { describe, expect, it } from "vitest";
import { ApiError } from "@/api/http";
import { FOLLOW_INTERVAL_MS } from "@/api/queries";
import type { ChallengeResponse } from "@/api/types";
import { claimFollowInterval } from "./following";

const answer = (status: ChallengeResponse["status"]) => ({ status }) as ChallengeResponse;
const missing = new ApiError(404, "No submission uses this transaction.", {});

describe("claimFollowInterval", () => {
  it("follows a pending claim, and a posted claim the server does not know yet", () => {
    expect(claimFollowInterval(answer("pending"), null, "submitted")).toBe(FOLLOW_INTERVAL_MS);
    expect(claimFollowInterval(undefined, missing, "submitted")).toBe(FOLLOW_INTERVAL_MS);
  });

  it("stops once settled, before the POST, and on other errors", () => {
    expect(claimFollowInterval(answer("confirmed"), null, "submitted")).toBe(false);
    expect(claimFollowInterval(answer("rejected"), null, "submitted")).toBe(false);
    // Not posted yet: the POST's success asks again (refreshAfterClaim), no need to poll.
    expect(claimFollowInterval(undefined, missing, "sent")).toBe(false);
    expect(claimFollowInterval(undefined, new ApiError(500, "Boom.", {}), "submitted")).toBe(false);
  });
});
