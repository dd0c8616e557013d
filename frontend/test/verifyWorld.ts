import { verifyChallenge, type VerificationReport } from "@/lib/verify-outcomes";
import type { ChainWorld } from "./chainWorld";
import { TEST_CONFIG } from "./fixtures";

/** The in-browser verifier run against a ChainWorld: the site's GETs and the node's batches
 * answered by `world.route`. */
export function verifyWorld(world: ChainWorld): Promise<VerificationReport> {
  return verifyChallenge({
    challenge: world.challenge,
    config: TEST_CONFIG,
    fetchImpl: (async (input: RequestInfo | URL, init?: RequestInit) =>
      world.route(String(input), init)) as typeof fetch,
  });
}

/** Every difference of a report about responses and rejected claims, and the challenge-wide ones,
 * each named by what it concerns. */
export function everyDifference(report: VerificationReport): string[] {
  return [
    ...report.outcomes.flatMap((o) => o.problems.map((p) => `response ${o.response.id}: ${p}`)),
    ...report.rejected.flatMap((r) => r.problems.map((p) => `rejected ${r.claim.id}: ${p}`)),
    ...report.differences,
  ];
}
