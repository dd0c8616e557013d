"""Whether a burst of relayed stakes lost or doubled anything, from what the chain holds (bench/relay.py):
pure functions, so that tests/test_bench_reconcile.py can show they find each fault."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence


def nonce_gaps(nonces: Iterable[int]) -> dict:
    """Whether `nonces` are consecutive: those missing between the lowest and the highest, and those
    used more than once."""
    counted = Counter(nonces)
    if not counted:
        return {"first": None, "last": None, "missing": [], "repeated": []}
    low, high = min(counted), max(counted)
    return {
        "first": low,
        "last": high,
        "missing": [n for n in range(low, high + 1) if n not in counted],
        "repeated": sorted(n for n, k in counted.items() if k > 1),
    }


def blocks_from(head_at_release: int, blocks: Iterable[int]) -> dict[int, int]:
    """How many stakes each block took, numbered from the POSTs: 1 is the first block produced after
    the release (the head then was `head_at_release`)."""
    return dict(sorted(Counter(b - head_at_release for b in blocks).items()))


def reconcile(
    *,
    expected: dict[str, tuple[str, int]],
    answers: dict[str, int],
    staked: Sequence[dict],
    transactions: dict[str, dict],
    receipts: dict[str, dict],
    relayer: str,
    owed_delta: int,
) -> dict:
    """`expected`: each stake posted, by commitment: (payer, amount in units). `answers`: each POST's
    status by commitment. `staked`: the pot's Staked logs of the burst's blocks, decoded (payer, seq,
    amount, commitment, transactionHash). `transactions` and `receipts`: the mined transactions of those
    logs and of the relayer's records, by hash. `owed_delta`: the pot's `owed` after the last stake less
    before the POSTs."""
    problems: list[str] = []
    not_201 = [c for c in expected if answers.get(c) != 201]
    if not_201:
        problems.append(f"POSTs not answered 201: {len(not_201)}")

    per_commitment = Counter(s["commitment"] for s in staked)
    twice = sorted(c for c, n in per_commitment.items() if n > 1)
    never = sorted(set(expected) - set(per_commitment))
    strangers = sorted(set(per_commitment) - set(expected))
    wanted = {c: (payer.lower(), amount) for c, (payer, amount) in expected.items()}
    wrong = [s["commitment"] for s in staked if s["commitment"] in wanted
             and (s["payer"].lower(), s["amount"]) != wanted[s["commitment"]]]  # fmt: skip
    seqs = sorted(s["seq"] for s in staked)
    seq_gaps = bool(seqs) and seqs != list(range(seqs[0], seqs[0] + len(seqs)))
    staked_problems = bool(twice or never or strangers or wrong or seq_gaps)
    if staked_problems:
        problems.append(
            f"Staked: {len(twice)} twice, {len(never)} never, {len(strangers)} not the burst's, {len(wrong)} of "
            f"another payer or amount, sequence numbers {'with gaps' if seq_gaps else 'consecutive'}"
        )

    relayer = relayer.lower()
    carriers = {s["transactionHash"] for s in staked}
    not_relayer = sorted(h for h in carriers if (transactions.get(h) or {}).get("from", "").lower() != relayer)
    failed = sorted(h for h in carriers if (receipts.get(h) or {}).get("status") != "0x1")
    if not_relayer or failed:
        problems.append(f"transactions: {len(not_relayer)} not the relayer's, {len(failed)} without a good receipt")
    nonces = nonce_gaps(int(t["nonce"], 16) for h, t in transactions.items() if t["from"].lower() == relayer)
    if nonces["missing"] or nonces["repeated"]:
        problems.append(f"the relayer's nonces: missing {nonces['missing']}, repeated {nonces['repeated']}")

    stakes_sum = sum(amount for _, amount in expected.values())
    if owed_delta != stakes_sum:
        problems.append(f"owed: +{owed_delta} units, the stakes sum to {stakes_sum}")
    return {
        "stakes": len(expected),
        "answered201": len(expected) - len(not_201),
        "stakedLogs": len(staked),
        "stakedProblems": staked_problems,
        "relayerTransactions": len(carriers),
        "nonces": nonces,
        "owedDelta": owed_delta,
        "stakesSum": stakes_sum,
        "problems": problems,
        "nothingLostOrDoubled": not problems,
    }
