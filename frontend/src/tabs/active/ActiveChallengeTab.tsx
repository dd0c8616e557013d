import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, type ComponentType } from "react";
import { activeChallengeQuery, FOLLOW_INTERVAL_MS } from "@/api/queries";
import { Alert } from "@/components/Alert";
import { Spinner } from "@/components/Spinner";
import { MySubmissionsPanel } from "@/tabs/my-submissions";
import { useHasPendingClaims } from "@/tabs/my-submissions/following";
import { recordAnchor } from "@/wallet/pending";
import { ChallengeCard } from "./ChallengeCard";
import type { CoordinatesAddonProps } from "./CoordinatesAddon";
import { SubmissionForm } from "./SubmissionForm";

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

/** The default tab: the active challenge, the submission form, and this browser's guesses. */
export function ActiveChallengeTab({
  coordinatesAddon,
}: {
  coordinatesAddon?: ComponentType<CoordinatesAddonProps> | null;
}) {
  // While a claim of this browser is pending the total bids may move: re-read (a 304 when not).
  const following = useHasPendingClaims();
  const query = useQuery({ ...activeChallengeQuery(), refetchInterval: following ? FOLLOW_INTERVAL_MS : false });
  // The answer is rendered as a deferred update: React renders the challenge card and the form in
  // the background in short slices instead of one long task when the answer arrives (the query
  // hook's own update is synchronous). Status and data are deferred together, so they stay paired.
  const data = useDeferredValue(query.data);
  const status = useDeferredValue(query.status);
  const isPending = status === "pending";
  const isError = status === "error";
  let body;
  if (isPending) body = <ActiveChallengeSkeleton />;
  else if (isError) body = <Alert tone="error">Failed to load active challenge. Please try again later.</Alert>;
  else if (!data) body = <Alert>No active challenge available at the moment.</Alert>;
  else
    body = (
      <div className="grid-2">
        <ChallengeCard challenge={data} />
        <SubmissionForm
          challengeId={data.id}
          anchor={recordAnchor(data)}
          {...(coordinatesAddon !== undefined ? { coordinatesAddon } : {})}
        />
      </div>
    );
  return (
    <div className="active-tab">
      {body}
      <MySubmissionsPanel />
    </div>
  );
}
