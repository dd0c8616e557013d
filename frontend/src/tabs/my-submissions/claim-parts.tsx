import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { activeChallengeQuery } from "@/api/queries";
import type { ChallengeResponse, ClaimOutcome, PayoutStatus } from "@/api/types";
import { ExplorerLink } from "@/components/ExplorerLink";
import { formatDistance, formatUsdc } from "@/lib/format";

/** What every kind of claim in My submissions shows alike: its status, its outcome once resolved,
 * and the re-reads of the active challenge when it settles. */

/** How long a web process may still serve the active challenge as it was before a change: its copy
 * is used only while a PING answered at most 1 s ago proves it hears every bump (docs/decisions.md,
 * "A copy in each process"). A read made at the moment a claim settles can fall in that second. */
export const SERVER_COPY_LAG_MS = 1500;

/** Read the active challenge again now, and once more after SERVER_COPY_LAG_MS: the first read can
 * be answered from a copy the confirmation's bump has not reached yet, and nothing else asks again
 * before the next poll (the card's total bids would contradict the "Confirmed" shown beside it). */
export function useRereadActive() {
  const queryClient = useQueryClient();
  const timers = useRef<Set<ReturnType<typeof setTimeout>>>(new Set());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => clearTimeout(timer));
  }, []);
  return () => {
    const reread = () => void queryClient.invalidateQueries({ queryKey: activeChallengeQuery().queryKey });
    reread();
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      reread();
    }, SERVER_COPY_LAG_MS);
    timers.current.add(timer);
  };
}

/** When a claim of this page settles (confirmed or rejected) in an answer fetched while the page
 * shows it, the active challenge is read once more: a confirmation moves its total bids. That
 * includes a claim whose very first answer is already settled: the head watcher can confirm a claim
 * between the POST (after which the card was last read) and the page's first look-up. An unchanged
 * card costs a bodiless 304; a settled answer the query cache already held changes nothing. */
export function useRereadActiveOnSettle(status: string | undefined, fetchedAfterMount: boolean) {
  const rereadActive = useRereadActive();
  const previous = useRef<string | undefined>(undefined);
  useEffect(() => {
    const was = previous.current;
    previous.current = status;
    const settled = status === "confirmed" || status === "rejected";
    if (settled && was !== status && fetchedAfterMount && was !== "confirmed" && was !== "rejected") {
      rereadActive();
    }
    // rereadActive is a new function each render; the rule reads only the status's change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status, fetchedAfterMount]);
}

/** How often a claim is asked again while its prize is on its way (due, being verified, or its
 * recorded transaction failed): the page then never shows "Not paid yet" long after the Winners'
 * Circle shows it paid. Only a winner's claims are asked so, with an ETag (a 304 when unchanged). */
export const PAYOUT_FOLLOW_INTERVAL_MS = 30_000;
const PAYOUT_ON_ITS_WAY = new Set<PayoutStatus | null>(["due", "verifying", "failed"]);

export function payoutFollowInterval(claim: ChallengeResponse | undefined): number | false {
  return claim?.outcome && PAYOUT_ON_ITS_WAY.has(claim.outcome.payoutStatus) ? PAYOUT_FOLLOW_INTERVAL_MS : false;
}

const PAYOUT_TEXT: Record<PayoutStatus, string> = {
  due: "Not paid yet: it is sent to the wallet that paid the bid",
  verifying: "Sent, being verified on chain",
  paid: "Paid",
  failed: "Not paid yet: the recorded payout could not be verified on chain and is being sent again",
  kept: "Kept in the treasury",
};

/** A resolved claim's result (docs/protocol.md section 6, "What the player sees"): the verdict
 * and distance, the prize, and the payout with its transaction. Texts in docs/decisions.md,
 * "Outcome in My submissions". */
export function OutcomeFields({ outcome }: { outcome: ClaimOutcome }) {
  const won = outcome.payoutStatus !== null;
  const hash = outcome.payoutTransactionHash;
  return (
    <>
      <dt>Result</dt>
      <dd>
        {outcome.isCorrect ? "Correct" : "Not correct"}: {formatDistance(outcome.distanceMeters)} from the solution
      </dd>
      <dt>Prize</dt>
      <dd>{won ? `${formatUsdc(outcome.prize)} USDC` : "None"}</dd>
      {won ? (
        <>
          <dt>Payout</dt>
          <dd>
            {PAYOUT_TEXT[outcome.payoutStatus!]}
            {hash ? (
              <>
                {": "}
                <ExplorerLink kind="tx" value={hash} plain={hash}>
                  View the payout transaction <span className="visually-hidden">{hash}</span>
                </ExplorerLink>
              </>
            ) : null}
          </dd>
        </>
      ) : null}
    </>
  );
}

export function statusText(claim: ChallengeResponse) {
  return (
    <span>
      <span className={`status-${claim.status}`}>{claim.status[0]?.toUpperCase() + claim.status.slice(1)}</span>
      {claim.status === "rejected" && claim.rejectionReason ? `: ${claim.rejectionReason}` : null}
    </span>
  );
}
