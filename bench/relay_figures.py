"""The relay benchmarks' figures from what they recorded, as pure functions (tests/test_relay_bench.py):
whether a burst of claims paid by authorization lost or doubled anything (the POST answers, the
stored claims, the relayer's transactions and nonces, the token's logs, the treasury's balance),
the blocks it used counted from the POSTs, and the chain's floor of a relayed stake on the page."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest rank (bench/verify.py's), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def stats(values: Sequence[float]) -> dict:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": max(values) if values else None}


def nonce_gaps(nonces: Iterable[int]) -> dict:
    """Whether `nonces` are consecutive: the ones missing between the lowest and the highest, and
    the ones used more than once."""
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
    """How many transactions each block took, numbered from the POSTs: 1 is the first block
    produced after the release (the head then was `head_at_release`)."""
    return dict(sorted(Counter(b - head_at_release for b in blocks).items()))


def floor_block(signed_at: float, blocks: dict[int, float], confirmations: int) -> tuple[int, float] | None:
    """The chain's floor for a stake signed at `signed_at` (ms): the block that would make it deep
    enough had it been mined in the first block produced after the signature, i.e. the
    `confirmations`-th block produced after it, and when that block was first seen. `blocks`: block
    number -> first seen (ms). None when the head poll has not seen that block."""
    after = sorted(n for n, at in blocks.items() if at > signed_at)
    if len(after) < confirmations:
        return None
    number = after[0] + confirmations - 1
    return (number, blocks[number]) if number in blocks else None


@dataclass(frozen=True)
class Expected:
    """A claim the burst posted: its payer, commitment and stake in token units."""

    payer: str
    commitment: str
    stake_units: int


def _lower(value: str | None) -> str:
    return (value or "").lower()


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


def reconcile(
    *,
    expected: Sequence[Expected],
    answers: dict[str, int],
    stored: Sequence[dict],
    relayed: Sequence[dict],
    used_logs: Sequence[dict],
    transfer_logs: Sequence[dict],
    receipt_status: dict[str, int],
    treasury: str,
    treasury_delta: int,
) -> dict:
    """Nothing lost or doubled across a burst. `answers`: POST status by commitment; `stored`: the
    claim rows ({commitment, submitter, status, transactionHash, paymentMethod, relayStatus,
    relayTransactionHash}); `relayed`: the relayer's transaction rows made during the burst
    ({commitment or None, nonce, transactionHash, status, kind, attempts}); the token's
    AuthorizationUsed logs and Transfer logs to the treasury in the burst's blocks (raw JSON-RPC
    logs); each mined transaction's receipt status; the treasury's USDC delta over those blocks."""
    want = {e.commitment: e for e in expected}
    problems: list[str] = []

    not_201 = {c: s for c, s in answers.items() if s != 201}
    unanswered = sorted(set(want) - set(answers))
    if not_201 or unanswered:
        problems.append(f"POSTs not answered 201: {len(not_201) + len(unanswered)}")

    rows = Counter(r["commitment"] for r in stored)
    missing_rows = sorted(set(want) - set(rows))
    doubled_rows = sorted(c for c, k in rows.items() if k > 1)
    strange_rows = sorted(set(rows) - set(want))
    wrong_method = [r["commitment"] for r in stored if r["paymentMethod"] != "authorization"]
    wrong_payer = [r["commitment"] for r in stored if r["commitment"] in want
                   and _lower(r["submitter"]) != _lower(want[r["commitment"]].payer)]  # fmt: skip
    if missing_rows or doubled_rows or strange_rows or wrong_method or wrong_payer:
        problems.append(
            f"stored claims: {len(missing_rows)} missing, {len(doubled_rows)} doubled, {len(strange_rows)} "
            f"unexpected, {len(wrong_method)} not by authorization, {len(wrong_payer)} of another payer"
        )

    stakes = [t for t in relayed if t["kind"] == "stake"]
    per_claim = Counter(t["commitment"] for t in stakes)
    no_tx = sorted(set(want) - set(per_claim))
    many_tx = sorted(c for c, k in per_claim.items() if k > 1)
    other_tx = [t for t in relayed if t["kind"] != "stake" or t["commitment"] not in want]
    not_mined = [t["transactionHash"] for t in stakes if t["status"] != "mined"]
    nonces = nonce_gaps(t["nonce"] for t in relayed)
    resent = sum(1 for t in relayed if t["attempts"] > 1)
    if no_tx or many_tx or other_tx or not_mined or nonces["missing"] or nonces["repeated"]:
        problems.append(
            f"relayer: {len(no_tx)} claims without a transaction, {len(many_tx)} with more than one, "
            f"{len(other_tx)} other transactions, {len(not_mined)} not mined, nonces missing "
            f"{nonces['missing']}, repeated {nonces['repeated']}"
        )
    relay_of = {t["commitment"]: _lower(t["transactionHash"]) for t in stakes}

    uses = Counter((_topic_address(log["topics"][1]), log["topics"][2].lower().removeprefix("0x")) for log in used_logs)
    wanted_uses = {(_lower(e.payer), c) for c, e in want.items()}
    uses_twice = sorted(k for k, n in uses.items() if n > 1)
    uses_missing = sorted(wanted_uses - set(uses))
    uses_other = sorted(set(uses) - wanted_uses)
    by_tx = {(_lower(log["transactionHash"]), int(log["logIndex"], 16)): log for log in transfer_logs}
    paid, unpaired, wrong_tx, failed = 0, [], [], []
    for log in used_logs:
        payer, nonce = _topic_address(log["topics"][1]), log["topics"][2].lower().removeprefix("0x")
        tx = _lower(log["transactionHash"])
        if nonce in want and relay_of.get(nonce) != tx:
            wrong_tx.append(nonce)
        if receipt_status.get(tx) != 1:
            failed.append(tx)
        transfer = by_tx.get((tx, int(log["logIndex"], 16) + 1))
        stake = want[nonce].stake_units if nonce in want else None
        if (
            transfer is None
            or _topic_address(transfer["topics"][1]) != payer
            or _topic_address(transfer["topics"][2]) != _lower(treasury)
            or int(transfer["data"], 16) != stake
        ):
            unpaired.append(nonce)
        else:
            paid += 1
    if len(used_logs) != len(want) or uses_twice or uses_missing or uses_other or wrong_tx or failed:
        problems.append(
            f"AuthorizationUsed: {len(used_logs)} logs for {len(want)} claims, {len(uses_twice)} nonces used twice, "
            f"{len(uses_missing)} never used, {len(uses_other)} not the burst's, {len(wrong_tx)} in another "
            f"transaction than the relayer's, {len(failed)} in a failed receipt"
        )
    if unpaired or len(transfer_logs) != len(want):
        problems.append(
            f"Transfer: {len(transfer_logs)} to the treasury for {len(want)} claims, {len(unpaired)} uses without "
            "their Transfer of the stake right after"
        )
    stakes_sum = sum(e.stake_units for e in expected)
    if treasury_delta != stakes_sum:
        problems.append(f"treasury: +{treasury_delta} units, the stakes sum to {stakes_sum}")

    unconfirmed = [r["commitment"] for r in stored if r["status"] != "confirmed"]
    other_hash = [r["commitment"] for r in stored if r["commitment"] in relay_of
                  and _lower(r["transactionHash"]) != relay_of[r["commitment"]]]  # fmt: skip
    if unconfirmed or other_hash:
        problems.append(f"claims: {len(unconfirmed)} not confirmed, {len(other_hash)} naming another transaction")

    return {
        "claims": len(want),
        "answered201": sum(1 for s in answers.values() if s == 201),
        "storedClaims": sum(rows.values()),
        "relayTransactions": len(relayed),
        "relayResent": resent,
        "nonces": {
            "first": nonces["first"],
            "last": nonces["last"],
            "missing": nonces["missing"],
            "repeated": nonces["repeated"],
        },  # fmt: skip
        "authorizationUsedLogs": len(used_logs),
        "transferLogs": len(transfer_logs),
        "pairedTransfers": paid,
        "treasuryDeltaUnits": treasury_delta,
        "stakesSumUnits": stakes_sum,
        "confirmed": sum(1 for r in stored if r["status"] == "confirmed"),
        "problems": problems,
        "nothingLostOrDoubled": not problems,
    }
