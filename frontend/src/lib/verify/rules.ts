/** The pot's rules of winners and money (docs/protocol.md section 4, "Order, winners and the split"),
 * as verify_challenge.py has them; tests/vectors.json ("verifier") pins the two together. Amounts
 * are token units. */

/** The winners as the pot keeps them while reveals arrive: the lowest correct sequence, and the
 * highest correct stake with ties to the lower sequence. null: nobody correct yet. */
export interface Best {
  earliest: number | null;
  highest: number | null;
  highestAmount: bigint;
}

export const NO_WINNER: Best = { earliest: null, highest: null, highestAmount: 0n };

export const PRIZE_PERCENT = 40n;

/** One reveal, in constant work, as GeopoemPot.revealGuess: a duplicate or an incorrect guess changes
 * nothing, and the order of the reveals does not matter. */
export function keepBest(best: Best, seq: number, amount: bigint, correct: boolean): Best {
  if (!correct) return best;
  const earliest = best.earliest === null || seq < best.earliest ? seq : best.earliest;
  const higher =
    best.highest === null || amount > best.highestAmount || (amount === best.highestAmount && seq < best.highest);
  return higher ? { earliest, highest: seq, highestAmount: amount } : { ...best, earliest };
}

/** The prizes a correct guess of this stake would take from `best` if it were revealed. */
export function beats(best: Best, seq: number, amount: bigint): ("earliest" | "highest")[] {
  const after = keepBest(best, seq, amount, true);
  const won: ("earliest" | "highest")[] = [];
  if (after.earliest === seq && best.earliest !== seq) won.push("earliest");
  if (after.highest === seq && best.highest !== seq) won.push("highest");
  return won;
}

/** Each prize (40 %, rounded down) and the share (the remainder): nothing is left over. */
export function split(pot: bigint): { prize: bigint; share: bigint } {
  const prize = (pot * PRIZE_PERCENT) / 100n;
  return { prize, share: pot - 2n * prize };
}

/** The bond's share of each refund after an abort, in the order the refunds are made: each takes
 * bondLeft × stake / potLeft, rounded down, so the last takes what remains. */
export function bondShares(refunds: bigint[], pot: bigint, bond: bigint): bigint[] {
  let bondLeft = bond;
  let potLeft = pot;
  return refunds.map((amount) => {
    const share = (bondLeft * amount) / potLeft; // potLeft ≥ this stake > 0, as in GeopoemPot.refund
    bondLeft -= share;
    potLeft -= amount;
    return share;
  });
}
