/** 5. Payments (verify_challenge.py, check_payments): each prize, share and refund by the rules, to
 * the recorded payer or the pot's share receiver; what is still owed is reported due; the site's list
 * of payments must be the pot's. */
import { type Context, type Report, termsOf, toUnits, usdc } from "./report";
import { EARLIEST, HIGHEST, KIND_NAMES, potOf, SHARE, type Stake } from "./replay";
import { bondShares, split } from "./rules";
import { some } from "./stakes";

export function checkPayments(ctx: Context, report: Report): string[] {
  const r = ctx.replay;
  const terms = termsOf(ctx);
  const aborted = r.solution === null && ctx.chain.headTime >= terms.solutionDeadline;
  if (!r.finalized && !aborted) {
    report.line("payments: none due yet (the challenge is not finalized or aborted)");
    checkPaymentsListed(ctx, report);
    return [];
  }
  if (aborted) {
    report.line(
      "payments: aborted (the solution was not revealed by its deadline): every stake is refunded with the bond",
    );
    const amounts = r.refundOrder.map((seq) => r.stakes.get(seq)!.amount);
    const expected = bondShares(amounts, potOf(r), terms.bond);
    r.refundOrder.forEach((seq, i) => {
      const taken = r.refunds.get(seq)!.args.bondShare;
      if (taken !== expected[i])
        report.differ(`its refund took ${usdc(taken)} USDC of the bond, not ${usdc(expected[i]!)}`, seq);
    });
  } else if (r.best.earliest === null) {
    for (const [seq, refund] of r.refunds) {
      if (refund.args.bondShare !== 0n)
        report.differ("its refund took a share of the bond, which only an abort gives", seq);
    }
  }
  checkShare(ctx, report, aborted);
  const due = duePayments(ctx);
  const dueText = due.length > 0 ? `; due: ${due.join(", ")}` : "";
  const count = (n: number, thing: string) => `${n} ${thing}${n === 1 ? "" : "s"}`;
  report.line(
    `payments: ${count(r.paid.size, "payment")} and ${count(r.refunds.size, "refund")} made by the rules${dueText}`,
  );
  checkPaymentsListed(ctx, report);
  return due;
}

function checkShare(ctx: Context, report: Report, aborted: boolean): void {
  const r = ctx.replay;
  const paid = r.paid.get(SHARE);
  if (!paid) return;
  const { share } = r.best.earliest !== null && !aborted ? split(potOf(r)) : { share: 0n };
  const expected = share + termsOf(ctx).bond;
  if (paid.args.to !== ctx.chain.shareReceiver || paid.args.amount !== expected) {
    report.differ(
      `payments: the share paid ${usdc(paid.args.amount)} USDC to ${paid.args.to}; by the rules ` +
        `${usdc(expected)} USDC to the pot's share receiver ${ctx.chain.shareReceiver}`,
    );
  }
}

function duePayments(ctx: Context): string[] {
  const r = ctx.replay;
  const bond = termsOf(ctx).bond;
  const due: string[] = [];
  if (r.best.earliest !== null && r.finalized) {
    const { prize, share } = split(potOf(r));
    for (const kind of [EARLIEST, HIGHEST]) {
      if (!r.paid.has(kind)) due.push(`the ${KIND_NAMES[kind]} prize of ${usdc(prize)} USDC`);
    }
    if (!r.paid.has(SHARE)) due.push(`the share of ${usdc(share + bond)} USDC`);
    return due;
  }
  const unrefunded = [...r.stakes.keys()].filter((seq) => !r.refunds.has(seq));
  if (unrefunded.length > 0) due.push(`the refunds of stakes ${some(unrefunded)}`);
  if (!r.paid.has(SHARE) && bond > 0n && (r.finalized || r.stakes.size === 0)) {
    due.push(`the bond of ${usdc(bond)} USDC back to the share receiver`);
  }
  return due;
}

/** The site's list of payments must be the pot's Paid and Refunded events, each once. */
function checkPaymentsListed(ctx: Context, report: Report): void {
  const r = ctx.replay;
  const key = (kind: unknown, seq: unknown, to: unknown, amount: bigint | null, tx: unknown) =>
    JSON.stringify([
      kind,
      seq,
      String(to ?? "").toLowerCase(),
      amount?.toString() ?? null,
      String(tx ?? "").toLowerCase(),
    ]);
  const chain = new Map<string, string>();
  for (const [kind, e] of r.paid) {
    const name = KIND_NAMES[kind];
    if (name)
      chain.set(
        key(name, null, e.args.to, e.args.amount, e.tx),
        `${name} payment of ${usdc(e.args.amount)} USDC to ${e.args.to} (transaction ${e.tx})`,
      );
  }
  for (const [seq, e] of r.refunds) {
    const amount = e.args.stake + e.args.bondShare;
    chain.set(
      key("refund", seq, e.args.payer, amount, e.tx),
      `refund of stake ${seq} of ${usdc(amount)} USDC to ${e.args.payer} (transaction ${e.tx})`,
    );
  }
  const site = new Map<string, string>();
  for (const p of ctx.site.winners.payments ?? []) {
    const amount = toUnits(p.amount, ctx.decimals);
    const seq = p.kind === "refund" ? p.seq : null;
    site.set(
      key(p.kind, seq, p.to, amount, p.transactionHash),
      `${p.kind === "refund" ? `refund of stake ${seq}` : `${p.kind} payment`} of ${p.amount} USDC to ${p.to} (transaction ${p.transactionHash})`,
    );
  }
  for (const [k, text] of site) {
    if (!chain.has(k)) report.differ(`payments: the site lists a ${text} that the pot did not make`);
  }
  for (const [k, text] of chain) {
    if (!site.has(k)) report.differ(`payments: the site does not list the pot's ${text}`);
  }
}

/** What a stake got: its refund, or the prizes it won and whether each is paid. */
export function stakeMoney(ctx: Context, stake: Stake): string {
  const r = ctx.replay;
  const refund = r.refunds.get(stake.seq);
  if (refund) return `refunded ${usdc(refund.args.stake + refund.args.bondShare)} USDC (transaction ${refund.tx})`;
  const won = [EARLIEST, HIGHEST].filter(
    (kind) => (kind === EARLIEST ? r.best.earliest : r.best.highest) === stake.seq,
  );
  if (won.length === 0 || !r.finalized) return `nothing paid to it${r.finalized ? "" : " yet"}`;
  const parts = won.map((kind) => {
    const paid = r.paid.get(kind);
    const name = KIND_NAMES[kind];
    return paid
      ? `the ${name} prize, paid ${usdc(paid.args.amount)} USDC (transaction ${paid.tx})`
      : `the ${name} prize of ${usdc(split(potOf(r)).prize)} USDC, due`;
  });
  return `it won ${parts.join(" and ")}`;
}
