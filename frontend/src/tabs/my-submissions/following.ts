import { useQueryClient, type Query } from "@tanstack/react-query";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { FOLLOW_INTERVAL_MS, isStakeStatusKey, isUnknownStake } from "@/api/queries";
import type { Stake } from "@/api/types";
import { parseBlockNumber } from "@/wallet/pending";
import type { EIP1193Provider } from "@/wallet/types";

/** How the page follows this browser's stakes until they are confirmed in the pot (docs/decisions.md,
 * "Following a pending claim"): a stake's status is asked again while Geopoem relays it or it is
 * pending (every `pendingMs`: the head-driven schedule below, FOLLOW_INTERVAL_MS without one), and
 * while Geopoem does not know a stake this browser has handed over (the POST or the chain and the
 * look-up may pass each other); never once it is confirmed, refused or failed. React Query pauses
 * the interval while the tab is hidden and the answers' ETag makes an unchanged one a bodiless 304. */
export function stakeFollowInterval(
  data: Stake | undefined,
  error: unknown,
  handedOver: boolean,
  pendingMs: number = FOLLOW_INTERVAL_MS,
): number | false {
  if (error) return isUnknownStake(error) && handedOver ? FOLLOW_INTERVAL_MS : false;
  if (data?.status === "pending") return pendingMs;
  return data?.status === "relaying" ? FOLLOW_INTERVAL_MS : false;
}

function isShownStakeOnItsWay(query: Query): boolean {
  if (!isStakeStatusKey(query.queryKey) || query.getObserversCount() === 0) return false;
  const status = (query.state.data as Stake | undefined)?.status;
  return status === "pending" || status === "relaying";
}

/** Whether a stake shown on this page is on its way into the pot: the active challenge is re-read
 * meanwhile, so its total bids follow the confirmed pot. */
export function useHasStakesOnTheirWay(): boolean {
  const cache = useQueryClient().getQueryCache();
  const subscribe = useCallback((onChange: () => void) => cache.subscribe(onChange), [cache]);
  const snapshot = useCallback(() => cache.findAll({ predicate: isShownStakeOnItsWay }).length > 0, [cache]);
  return useSyncExternalStore(subscribe, snapshot);
}

/** Following a stake from the chain head the player's own wallet reports (docs/decisions.md,
 * "Following a pending claim"): the server confirms a stake within about a second of the block that
 * makes it deep enough, so the page watches the head through the wallet's provider (the player's
 * node, nothing on Geopoem's server), asks slowly before that block and quickly for a short window
 * after it. */
export const HEAD_POLL_MS = 500;
/** Before the deep-enough block the server cannot confirm the stake: asked at this slow pace. */
export const BEFORE_DEEP_FOLLOW_MS = 4000;
/** From the deep-enough block, for FAST_FOLLOW_WINDOW_MS at most. */
export const FAST_FOLLOW_MS = 250;
export const FAST_FOLLOW_WINDOW_MS = 6000;

export interface HeadClock {
  /** The head the wallet's provider last reported; null without one (no wallet, an error, another network). */
  head: number | null;
  /** The block the stake is in (the API's blockNumber once pending). */
  inclusionBlock: number | undefined;
  /** CHAIN_CONFIRMATIONS as a number of blocks (0: the page cannot tell, e.g. "finalized"). */
  confirmations: number;
  /** Milliseconds since the page first saw the deep-enough block; null before. */
  sinceDeepMs: number | null;
  visible: boolean;
}

export interface FollowPlan {
  /** The interval for a pending stake's status. */
  statusMs: number;
  /** When to ask the wallet for the head again; false: not at all. */
  headMs: number | false;
}

/** The block from which the server can confirm the stake (its own block counts as one). */
export function deepBlock(inclusionBlock: number, confirmations: number): number {
  return inclusionBlock + confirmations - 1;
}

/** The pure schedule: plain polling (FOLLOW_INTERVAL_MS) without an inclusion block or a head;
 * slow before the deep-enough block while the head is watched every HEAD_POLL_MS (only while the
 * tab is visible); fast for FAST_FOLLOW_WINDOW_MS from it; then plain polling again. */
export function followPlan({ head, inclusionBlock, confirmations, sinceDeepMs, visible }: HeadClock): FollowPlan {
  if (inclusionBlock === undefined || confirmations < 1) return { statusMs: FOLLOW_INTERVAL_MS, headMs: false };
  if (sinceDeepMs !== null || (head !== null && head >= deepBlock(inclusionBlock, confirmations))) {
    const since = sinceDeepMs ?? 0;
    return { statusMs: since <= FAST_FOLLOW_WINDOW_MS ? FAST_FOLLOW_MS : FOLLOW_INTERVAL_MS, headMs: false };
  }
  const headMs = visible ? HEAD_POLL_MS : false;
  return { statusMs: head === null ? FOLLOW_INTERVAL_MS : BEFORE_DEEP_FOLLOW_MS, headMs };
}

function isVisible(): boolean {
  return typeof document === "undefined" || document.visibilityState !== "hidden";
}

/** The chain head from the wallet's provider while `watch` holds and the tab is visible (every
 * HEAD_POLL_MS), and when the page first saw the deep-enough block. The provider must be on the
 * configured chain (checked once); an error or another chain ends the watch: head null, plain polling. */
export interface HeadWatch {
  head: number | null;
  /** Date.now() when the page first saw the deep-enough block; null before. */
  deepAt: number | null;
  visible: boolean;
}

export function useWalletHead(
  provider: EIP1193Provider | null,
  chainIdHex: string,
  inclusionBlock: number | undefined,
  confirmations: number,
  pending: boolean,
): HeadWatch {
  const [head, setHead] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);
  const [deepAt, setDeepAt] = useState<number | null>(null);
  const [visible, setVisible] = useState(isVisible);
  const deepReached = deepAt !== null;
  const watch =
    pending && !failed && !deepReached && Boolean(provider) && inclusionBlock !== undefined && confirmations >= 1;

  useEffect(() => {
    const onChange = () => setVisible(isVisible());
    document.addEventListener("visibilitychange", onChange);
    return () => document.removeEventListener("visibilitychange", onChange);
  }, []);

  useEffect(() => {
    if (!watch || !visible || !provider || inclusionBlock === undefined) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let chainChecked = false;
    const poll = async () => {
      try {
        if (!chainChecked) {
          const chainId = await provider.request({ method: "eth_chainId" });
          if (typeof chainId !== "string" || chainId.toLowerCase() !== chainIdHex.toLowerCase())
            throw new Error("another chain");
          chainChecked = true;
        }
        const next = parseBlockNumber(await provider.request({ method: "eth_blockNumber" }));
        if (next === null) throw new Error("no block number");
        if (stopped) return;
        setHead(next);
        if (next >= deepBlock(inclusionBlock, confirmations)) {
          setDeepAt(Date.now());
          return;
        }
      } catch {
        if (!stopped) {
          setHead(null);
          setFailed(true);
        }
        return;
      }
      if (!stopped) timer = setTimeout(() => void poll(), HEAD_POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [watch, visible, provider, chainIdHex, inclusionBlock, confirmations]);

  return { head: failed ? null : head, deepAt, visible };
}

/** The schedule at `now` (the status interval is computed each time React Query asks, so the fast
 * window ends on time without a render). */
export function planAt(
  watch: HeadWatch,
  inclusionBlock: number | undefined,
  confirmations: number,
  now: number = Date.now(),
): FollowPlan {
  return followPlan({
    head: watch.head,
    inclusionBlock,
    confirmations,
    sinceDeepMs: watch.deepAt === null ? null : now - watch.deepAt,
    visible: watch.visible,
  });
}
