import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, type ComponentType } from "react";
import { activeChallengeQuery, FOLLOW_INTERVAL_MS } from "@/api/queries";
import { Alert } from "@/components/Alert";
import { Spinner } from "@/components/Spinner";
import { MySubmissionsPanel } from "@/tabs/my-submissions";
import { useHasStakesOnTheirWay } from "@/tabs/my-submissions/following";
import { ChallengeCard } from "./ChallengeCard";
import type { CoordinatesAddonProps } from "./CoordinatesAddon";
import { PhaseCard } from "./PhaseCard";
import { SubmissionForm } from "./SubmissionForm";

/** How often a challenge that no longer takes stakes is read again: its phase moves with the chain. */
export const PHASE_FOLLOW_MS = 30_000;

/** What the tab shows while the challenge loads: the two cards' outlines at about their usual
 * height (main.css, .skeleton-*), so "My submissions" below does not jump down when the challenge
 * arrives (Lighthouse's cumulative layout shift). One status element announces the loading. */
function ActiveChallengeSkeleton() {
  return (
    <div className="grid-2 active-skeleton">
      <div className="card skeleton-card skeleton-challenge">
        <Spinner label="Loading the active challenge..." />
      </div>
      <div className="card skeleton-card skeleton-form" aria-hidden="true" />
    </div>
  );
}

/** The default tab: the open challenge and the submission form; when none is open, the latest that
 * is not final yet with what happens next; and this browser's stakes. */
export function ActiveChallengeTab({
  coordinatesAddon,
}: {
  coordinatesAddon?: ComponentType<CoordinatesAddonProps> | null;
}) {
  // While a stake of this browser is on its way the total bids may move: re-read (a 304 when not).
  const following = useHasStakesOnTheirWay();
  const query = useQuery({
    ...activeChallengeQuery(),
    refetchInterval: (q) =>
      following ? FOLLOW_INTERVAL_MS : q.state.data && q.state.data.phase !== "open" ? PHASE_FOLLOW_MS : false,
  });
  // The answer is rendered as a deferred update: React renders the challenge card and the form in
  // the background in short slices instead of one long task when the answer arrives (the query
  // hook's own update is synchronous). Status and data are deferred together, so they stay paired.
  const data = useDeferredValue(query.data);
  const status = useDeferredValue(query.status);
  let body;
  if (status === "pending") body = <ActiveChallengeSkeleton />;
  else if (status === "error")
    body = <Alert tone="error">Failed to load active challenge. Please try again later.</Alert>;
  else if (!data)
    body = (
      <Alert>
        <p>No active challenge available at the moment.</p>
        <p>Past challenges, their solutions and winners are in the Resolved Challenges tab and the Winners' Circle.</p>
      </Alert>
    );
  else if (data.phase !== "open") body = <PhaseCard challenge={data} />;
  else
    body = (
      <div className="grid-2">
        <ChallengeCard challenge={data} />
        <SubmissionForm challenge={data} {...(coordinatesAddon !== undefined ? { coordinatesAddon } : {})} />
      </div>
    );
  return (
    <div className="active-tab">
      {body}
      <MySubmissionsPanel />
    </div>
  );
}
