import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { FOLLOW_INTERVAL_MS, stakesByAddressQuery } from "@/api/queries";
import type { Stake } from "@/api/types";
import { useStakes, type StoredStake } from "@/wallet/pending";
import { useConnectedAddress } from "@/wallet/WalletContext";
import { formatStake } from "@/lib/format";

// A stake's row (its following, the pot's events, the wallet's own transactions) loads only in a
// browser that has one: the first paint of every other visit does not carry it.
const StakeItem = lazy(() => import("./StakeItem").then((m) => ({ default: m.StakeItem })));

function Row({ record, listed }: { record?: StoredStake; listed?: Stake }) {
  const stake = record?.stake ?? listed?.submissionStake ?? "";
  const challengeId = record?.challengeId ?? listed?.challengeId;
  return (
    <Suspense
      fallback={
        <li className="submission">
          {formatStake(stake)} USDC on #{challengeId}
        </li>
      }
    >
      <StakeItem {...(record ? { record } : {})} {...(listed ? { listed } : {})} />
    </Suspense>
  );
}

/** How often the connected wallet's list is read again while one of its stakes is on its way. */
export const LIST_FOLLOW_MS = FOLLOW_INTERVAL_MS;

/** The connected wallet's stakes from Geopoem that this browser has no record of (made in another
 * browser, or its storage was cleared). A stake this browser made is shown by its own record only:
 * the two are named by the same commitment. */
function useStakesElsewhere(records: StoredStake[]): Stake[] {
  const address = useConnectedAddress();
  const { data } = useQuery({
    ...stakesByAddressQuery(address ?? ""),
    enabled: Boolean(address),
    refetchInterval: (query) =>
      query.state.data?.some((stake) => stake.status === "pending" || stake.status === "relaying")
        ? LIST_FOLLOW_MS
        : false,
  });
  if (!address || !data) return [];
  const here = new Set(records.map((record) => record.commitment));
  return data.filter((stake) => !here.has(stake.commitment));
}

/** "My submissions": this browser's stakes (from localStorage) with Geopoem's status of each
 * (GET /api/responses/{commitment}) and the pot's own events for their outcome; with a wallet
 * connected, also that address's stakes Geopoem lists and this browser does not hold. */
export function MySubmissionsPanel() {
  const records = useStakes();
  const elsewhere = useStakesElsewhere(records);
  return (
    <section className="card" aria-labelledby="my-submissions-heading">
      <h2 id="my-submissions-heading">My submissions</h2>
      {records.length === 0 && elsewhere.length === 0 ? (
        <p>No submissions from this browser yet.</p>
      ) : (
        <ul className="submissions">
          {records.map((record) => (
            <Row key={record.salt} record={record} />
          ))}
          {elsewhere.map((stake) => (
            <Row key={stake.commitment} listed={stake} />
          ))}
        </ul>
      )}
    </section>
  );
}
