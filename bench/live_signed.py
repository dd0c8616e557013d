"""The figures of the live benchmark's phases paid by signature (bench/live.mjs, "blockSeconds:claims:signed";
docs/performance.md section 5b): from the moment the wallet gave the signature to "Confirmed" in the
page's My submissions, against the chain's floor for a relayed stake, and where the time went.

The floor: from the signature to the block that would make the payment deep enough had it been
mined in the first block produced after the signature, i.e. the CHAIN_CONFIRMATIONS-th block after
it (bench/relay_figures.py, floor_block). A stake the relayer did not get into that first block
waits a whole block more: each such miss is listed with why (when the relayer sent it against when
that block came)."""

from __future__ import annotations

from .relay_figures import floor_block, stats
from .worker_log import sending_run

GOAL_ABOVE_FLOOR_P95_SECONDS = 1.5


def _seconds(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else (b - a) / 1000


def _clean(values: list[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def claim_timeline(c: dict, blocks: dict[int, float], confirmations: int, runs: list[dict] = ()) -> dict | None:
    """One stake's times (seconds) from its signature; None when it never showed Confirmed."""
    signed, shown = c.get("signedAt"), c.get("confirmedShownAt")
    if signed is None or shown is None:
        return None
    run = sending_run(list(runs), c.get("relaySentAt")) or {}
    floor = floor_block(signed, blocks, confirmations)
    first = None if floor is None else floor[0] - confirmations + 1
    included = c.get("includedBlock")
    timeline = {
        "signatureToConfirmed": _seconds(signed, shown),
        "floor": None if floor is None else _seconds(signed, floor[1]),
        "signatureToPost": _seconds(signed, c["postAt"]),
        "signatureToPostAnswered": _seconds(signed, c["postAnsweredAt"]),
        "postAnsweredToRelaySent": _seconds(c["postAnsweredAt"], c.get("relaySentAt")),
        "signatureToRelaySent": _seconds(signed, c.get("relaySentAt")),
        "postAnsweredToRunStart": _seconds(c["postAnsweredAt"], run.get("startedAt")),
        "runReceivedToStart": _seconds(run.get("receivedAt"), run.get("startedAt")),
        "runStartToSent": _seconds(run.get("startedAt"), c.get("relaySentAt")),
        "relaySentToInclusionBlock": _seconds(c.get("relaySentAt"), c.get("includedBlockAt")),
        "deepBlockToServer": _seconds(c.get("deepBlockAt"), c.get("serverConfirmedAt")),
        "serverToPage": _seconds(c.get("serverConfirmedAt"), shown),
        "deepBlockToConfirmed": _seconds(c.get("deepBlockAt"), shown),
        "firstBlock": first,
        "firstBlockAfterSignature": None if first is None else _seconds(signed, blocks.get(first)),
        "inclusionIndex": None if first is None or included is None else included - first + 1,
    }
    if timeline["floor"] is not None:
        timeline["aboveFloor"] = timeline["signatureToConfirmed"] - timeline["floor"]
    return timeline


def missed_first_block(c: dict, t: dict) -> str:
    """Why a stake was not mined in the first block after its signature."""
    sent, first = t["signatureToRelaySent"], t["firstBlockAfterSignature"]
    if sent is None or first is None:
        return "no send of the relayer's recorded"
    if sent > first:
        return (
            f"the relayer sent it {sent:.2f} s after the signature, the first block came {first:.2f} s after it "
            f"(POST answered at {t['signatureToPostAnswered']:.2f} s, relay sent "
            f"{t['postAnsweredToRelaySent']:.2f} s after that)"
        )
    return f"sent {sent:.2f} s after the signature, before the first block ({first:.2f} s), yet mined later"


def signed_figures(phase: dict, blocks: dict[int, float], runs: list[dict] = ()) -> dict:
    confirmations = phase["confirmations"]
    claims = phase["claims"]
    rows = [(c, claim_timeline(c, blocks, confirmations, runs)) for c in claims]
    shown = [(c, t) for c, t in rows if t is not None]

    def of(key: str) -> dict:
        return stats(_clean([t.get(key) for _, t in shown]))

    index: dict[int, int] = {}
    for _, t in shown:
        if t["inclusionIndex"] is not None:
            index[t["inclusionIndex"]] = index.get(t["inclusionIndex"], 0) + 1
    missed = [
        {"commitment": c["commitment"], "inclusionIndex": t["inclusionIndex"], "why": missed_first_block(c, t)}
        for c, t in shown
        if (t["inclusionIndex"] or 1) > 1
    ]
    failed = [c["hash"] for c in claims if c["status"] != "confirmed" or not c.get("confirmedShownAt")]
    # The stakes over the goal, with where their time went (a missed first block, or the server or the
    # page after the deep-enough block).
    over = [
        {key: t[key] for key in ("aboveFloor", "inclusionIndex", "deepBlockToServer", "serverToPage")}
        for _, t in shown
        if (t.get("aboveFloor") or 0) > GOAL_ABOVE_FLOOR_P95_SECONDS
    ]
    return {
        "blockSeconds": phase["blockSeconds"],
        "signed": True,
        "confirmations": confirmations,
        "players": phase["players"],
        "claims": len(claims),
        "confirmedOnPage": len(shown),
        "failed": failed,
        "wallSeconds": phase["wallSeconds"],
        "signatureToConfirmedSeconds": of("signatureToConfirmed"),
        "chainFloorSeconds": of("floor"),
        "aboveFloorSeconds": of("aboveFloor"),
        "signatureToPostAnsweredSeconds": of("signatureToPostAnswered"),
        "postAnsweredToRelaySentSeconds": of("postAnsweredToRelaySent"),
        "signatureToRelaySentSeconds": of("signatureToRelaySent"),
        "postAnsweredToRunStartSeconds": of("postAnsweredToRunStart"),
        "runReceivedToStartSeconds": of("runReceivedToStart"),
        "runStartToSentSeconds": of("runStartToSent"),
        "relaySentToInclusionBlockSeconds": of("relaySentToInclusionBlock"),
        "deepBlockToServerSeconds": of("deepBlockToServer"),
        "serverToPageSeconds": of("serverToPage"),
        "deepBlockToConfirmedSeconds": of("deepBlockToConfirmed"),
        "inclusionIndex": dict(sorted(index.items())),
        "missedFirstBlock": missed,
        "overGoal": sorted(over, key=lambda o: o["aboveFloor"]),
        "relayResent": sum(1 for c in claims if (c.get("relayAttempts") or 1) > 1),
        "deepBlockSeenWithinMs": max((c.get("deepBlockPollGapMs") or 0) for c, _ in shown) if shown else None,
        "samples": sorted(_clean([t.get("aboveFloor") for _, t in shown])),
        "raw": claims,
    }


def meets_goal(phase: dict | None) -> bool:
    if phase is None:
        return False
    p95 = phase["aboveFloorSeconds"]["p95"]
    return (
        p95 is not None
        and p95 <= GOAL_ABOVE_FLOOR_P95_SECONDS
        and not phase["failed"]
        and phase["confirmedOnPage"] == phase["claims"]
    )
