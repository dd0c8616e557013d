/** The replay: the pot's events by its rules (docs/protocol.md section 2), as verify_challenge.py
 * replays them. Whatever breaks a rule is a problem of the chain itself (a pot that is not the pinned
 * code, or a node that lies). */
import { solutionCommitment } from "../protocol/commitment";
import { inRange, isCorrect } from "../protocol/geometry";
import type { EventOf, PotEvent, Terms } from "./chain";
import { type Best, keepBest, NO_WINNER, split } from "./rules";
import { usdc } from "./report";

export const EARLIEST = 0;
export const HIGHEST = 1;
export const SHARE = 2;
export const KIND_NAMES: Readonly<Record<number, "earliest" | "highest" | "share">> = {
  [EARLIEST]: "earliest",
  [HIGHEST]: "highest",
  [SHARE]: "share",
};

export interface Stake {
  seq: number;
  payer: string;
  amount: bigint;
  commitment: string;
  tx: string;
  block: number;
  logIndex: number;
  time: bigint | null;
}

export interface Replay {
  opened: EventOf<"Opened"> | null;
  terms: Terms | null;
  stakes: Map<number, Stake>;
  solution: EventOf<"SolutionRevealed"> | null;
  /** seq → its first reveal. */
  reveals: Map<number, EventOf<"GuessRevealed">>;
  best: Best;
  finalized: EventOf<"Finalized"> | null;
  /** kind → the payment. */
  paid: Map<number, EventOf<"Paid">>;
  refunds: Map<number, EventOf<"Refunded">>;
  refundOrder: number[];
  problems: { seq: number | null; text: string }[];
}

export interface Where {
  chainId: number;
  pot: string;
  challengeId: number;
}

export function potOf(r: Replay): bigint {
  let sum = 0n;
  for (const stake of r.stakes.values()) sum += stake.amount;
  return sum;
}

export function replay(events: PotEvent[], where: Where): Replay {
  const r: Replay = {
    opened: null,
    terms: null,
    stakes: new Map(),
    solution: null,
    reveals: new Map(),
    best: NO_WINNER,
    finalized: null,
    paid: new Map(),
    refunds: new Map(),
    refundOrder: [],
    problems: [],
  };
  const differ = (text: string, seq: number | null = null) => r.problems.push({ seq, text });
  for (const event of events) {
    if (event.name === "Opened") {
      if (r.opened) differ(`a second Opened event in block ${event.block}: the pot opens an id once`);
      else [r.opened, r.terms] = [event, event.args.terms];
    } else if (!r.terms) differ(`a ${event.name} event in block ${event.block} before the challenge was opened`);
    else if (event.name === "Staked") replayStake(r, r.terms, event, differ);
    else if (event.name === "SolutionRevealed") replaySolution(r, r.terms, event, where, differ);
    else if (event.name === "GuessRevealed") replayGuess(r, r.terms, event, differ);
    else if (event.name === "Finalized") replayFinalized(r, event, differ);
    else if (event.name === "Paid") replayPaid(r, event, differ);
    else replayRefund(r, r.terms, event, differ);
  }
  return r;
}

type Differ = (text: string, seq?: number | null) => void;

function replayStake(r: Replay, terms: Terms, event: EventOf<"Staked">, differ: Differ): void {
  const { seq, payer, amount, commitment } = event.args;
  if (seq !== r.stakes.size + 1) differ(`stake ${seq} follows stake ${r.stakes.size}: sequences go 1, 2, 3, ...`, seq);
  if (event.time !== null && !(terms.opensAt <= event.time && event.time < terms.closesAt)) {
    differ(`staked at ${event.time}, outside the open window [${terms.opensAt}, ${terms.closesAt})`, seq);
  }
  if (amount < terms.minStake) {
    differ(`a stake of ${usdc(amount)} USDC, below the minimum of ${usdc(terms.minStake)}`, seq);
  }
  if (r.solution) differ("staked after the solution's reveal", seq);
  r.stakes.set(seq, {
    seq,
    payer,
    amount,
    commitment,
    tx: event.tx,
    block: event.block,
    logIndex: event.logIndex,
    time: event.time,
  });
}

function replaySolution(
  r: Replay,
  terms: Terms,
  event: EventOf<"SolutionRevealed">,
  where: Where,
  differ: Differ,
): void {
  const { lat, lon, salt, guessDeadline } = event.args;
  if (r.solution) return differ(`a second SolutionRevealed event in block ${event.block}`);
  r.solution = event;
  const opened = solutionCommitment({
    chainId: BigInt(where.chainId),
    pot: where.pot,
    challengeId: BigInt(where.challengeId),
    latE6: lat,
    lonE6: lon,
    salt,
  });
  if (!inRange(lat, lon) || opened !== terms.solutionCommitment) {
    differ("the revealed solution does not open the solution commitment of the terms");
  }
  if (event.time === null) return;
  if (!(terms.closesAt <= event.time && event.time < terms.solutionDeadline)) {
    differ(`the solution was revealed at ${event.time}, outside [close, solution deadline)`);
  }
  if (guessDeadline !== event.time + terms.guessWindow) {
    differ(`the guess window ends at ${guessDeadline}, not the reveal's time + ${terms.guessWindow} s`);
  }
}

function replayGuess(r: Replay, terms: Terms, event: EventOf<"GuessRevealed">, differ: Differ): void {
  const { seq, payer, lat, lon, correct } = event.args;
  const stake = r.stakes.get(seq);
  const solution = r.solution;
  if (!solution || !stake || stake.payer !== payer) {
    return differ(`a guess revealed in block ${event.block} for no stake of this payer, or before the solution`, seq);
  }
  const deadline = solution.args.guessDeadline;
  if (event.time !== null && event.time >= deadline) {
    differ(`its guess was revealed at ${event.time}, after the guess window (${deadline})`, seq);
  }
  const verdict = isCorrect(
    { latE6: lat, lonE6: lon },
    { latE6: solution.args.lat, lonE6: solution.args.lon },
    terms.thresholdM,
  );
  if (verdict !== correct) {
    differ(`the pot scored its guess ${word(correct)}; the integer rule says ${word(verdict)}`, seq);
  }
  if (!r.reveals.has(seq)) r.reveals.set(seq, event);
  r.best = keepBest(r.best, seq, stake.amount, verdict);
}

const word = (correct: boolean) => (correct ? "correct" : "incorrect");

function replayFinalized(r: Replay, event: EventOf<"Finalized">, differ: Differ): void {
  if (r.finalized || !r.solution) {
    return differ(`a Finalized event in block ${event.block} twice, or with no solution revealed`);
  }
  r.finalized = event;
  const deadline = r.solution.args.guessDeadline;
  if (event.time !== null && event.time < deadline)
    differ(`finalized at ${event.time}, before the guess window's end (${deadline})`);
  const { prize, share } = r.best.earliest !== null ? split(potOf(r)) : { prize: 0n, share: 0n };
  const expected = [r.best.earliest ?? 0, r.best.highest ?? 0, prize, prize, share].join(", ");
  const a = event.args;
  const [winners, prizes] = [`${a.earliest}, ${a.highest}`, `${a.earliestPrize}, ${a.highestPrize}, ${a.share}`];
  if (`${winners}, ${prizes}` !== expected) {
    differ(`Finalized says winners (${winners}) and prizes (${prizes}); the replay gives (${expected})`);
  }
}

function replayPaid(r: Replay, event: EventOf<"Paid">, differ: Differ): void {
  const { kind, to, amount } = event.args;
  const name = KIND_NAMES[kind] ?? String(kind);
  if (r.paid.has(kind)) return differ(`the ${name} payment was made twice (block ${event.block})`);
  r.paid.set(kind, event);
  if (kind === EARLIEST || kind === HIGHEST) {
    const winner = kind === EARLIEST ? r.best.earliest : r.best.highest;
    const stake = r.stakes.get(winner ?? 0);
    const { prize } = split(potOf(r));
    if (!r.finalized || !stake || stake.payer !== to || amount !== prize) {
      const due = stake && r.finalized ? `${usdc(prize)} USDC to ${stake.payer}` : "nothing was due";
      differ(`the ${name} prize paid ${usdc(amount)} USDC to ${to}; by the rules ${due}`, winner);
    }
  } else if (kind === SHARE) {
    if (!r.finalized && !(r.solution === null && r.stakes.size === 0)) {
      differ(`the share was paid in block ${event.block} before the challenge was finalized`);
    }
  } else differ(`a payment of unknown kind ${kind} in block ${event.block}`);
}

function replayRefund(r: Replay, terms: Terms, event: EventOf<"Refunded">, differ: Differ): void {
  const { seq, payer, stake: amount } = event.args;
  const stake = r.stakes.get(seq);
  if (r.refunds.has(seq) || !stake || stake.payer !== payer || stake.amount !== amount) {
    return differ(`a refund of ${usdc(amount)} USDC to ${payer} that is not this stake's, or a second one`, seq);
  }
  const aborted = r.solution === null && event.time !== null && event.time >= terms.solutionDeadline;
  if (r.best.earliest !== null || (!r.finalized && !aborted)) {
    differ("refunded although the challenge has a winner, or before it was finalized or aborted", seq);
  }
  r.refunds.set(seq, event);
  r.refundOrder.push(seq);
}
