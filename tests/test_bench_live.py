"""The figures of the page's benchmark (bench/live.py, docs/performance.md section 4): each stake's
times from its signature, the deep-enough block counted from the block that holds its Staked event,
the requests counted only while a stake of the player waits, the goal refused on too few stakes or a
stake never shown Confirmed, and the plan the same on every run."""

from __future__ import annotations

import copy

import pytest

from bench import live
from bench.common import percentile

# Blocks first seen every 12 s from t = 1000 s.
BLOCKS = {n: 1000.0 + 12 * (n - 10) for n in range(10, 20)}


def stake(signed: float, block: int, shown: float, *, server: float | None = None, **extra) -> dict:
    """A stake as bench/live.py has it once joined: the driver's instants in ms, the rest in s."""
    return {"signedAt": signed * 1000, "postAnsweredAt": (signed + 0.1) * 1000, "confirmedShownAt": shown * 1000,
            "blockNumber": block, "serverConfirmedAt": server, "relaySentAt": signed + 0.2, **extra}  # fmt: skip


def test_a_stakes_times_count_from_its_signature_to_the_block_that_makes_it_deep_enough():
    # Signed at 1005 s, mined in block 11 (seen at 1012 s), two confirmations: block 12, seen at 1024 s.
    t = live.timeline(stake(1005.0, 11, 1024.8, server=1024.5), BLOCKS, 2)
    assert t["signatureToMined"] == pytest.approx(7.0)
    assert t["signatureToDeep"] == pytest.approx(19.0)
    assert t["deepToConfirmed"] == pytest.approx(0.8)
    assert t["deepToServer"] == pytest.approx(0.5) and t["serverToPage"] == pytest.approx(0.3)
    assert t["signatureToConfirmed"] == pytest.approx(19.8)
    assert t["signatureToPosted"] == pytest.approx(0.1) and t["signatureToSent"] == pytest.approx(0.2)
    assert t["blocksAfterSignature"] == 1
    # The relayer missed block 11: mined in block 12, the second block after the signature.
    late = live.timeline(stake(1005.0, 12, 1036.4), BLOCKS, 2)
    assert late["blocksAfterSignature"] == 2 and late["deepToConfirmed"] == pytest.approx(0.4)
    # One confirmation: the block that holds it is deep enough.
    assert live.timeline(stake(1005.0, 11, 1012.9), BLOCKS, 1)["deepToConfirmed"] == pytest.approx(0.9)


def test_a_stake_never_shown_or_never_mined_has_no_figure():
    t = live.timeline({**stake(1005.0, 11, 0), "confirmedShownAt": None}, BLOCKS, 2)
    assert t["deepToConfirmed"] is None and t["signatureToMined"] == pytest.approx(7.0)
    assert live.timeline({**stake(1005.0, 11, 1025), "blockNumber": None}, BLOCKS, 2)["deepToConfirmed"] is None


def test_requests_count_only_while_a_stake_of_the_player_waits():
    base = "http://127.0.0.1:8000"
    player = {
        # Waiting 10-14 s and 12-20 s: 10 s in all, the overlap counted once.
        "stakes": [
            {"postAnsweredAt": 10_000, "confirmedShownAt": 14_000},
            {"postAnsweredAt": 12_000, "confirmedShownAt": 20_000},
            {"postAnsweredAt": 30_000, "confirmedShownAt": None},
        ],  # never shown: not waiting
        "requests": [
            {"at": 9_000, "method": "GET", "url": f"{base}/api/challenges/active"},  # before
            {"at": 10_000, "method": "POST", "url": f"{base}/api/responses"},  # the POST itself, answered at 10 s
            {"at": 11_000, "method": "GET", "url": f"{base}/api/responses/{'ab' * 32}"},
            {"at": 13_000, "method": "GET", "url": f"{base}/api/responses/{'ab' * 32}"},
            {"at": 15_000, "method": "GET", "url": f"{base}/api/challenges/active"},
            {"at": 16_000, "method": "POST", "url": f"{base}/api/responses/guess"},
            {"at": 17_000, "method": "GET", "url": f"{base}/api/responses?address=0xab&limit=20"},
            {"at": 31_000, "method": "GET", "url": f"{base}/api/responses/{'cd' * 32}"},  # after
        ],
        "walletCalls": [
            {"method": "eth_blockNumber", "at": 12_500},
            {"method": "eth_chainId", "at": 12_600},
            {"method": "eth_blockNumber", "at": 25_000},
        ],  # fmt: skip
    }
    w = live.waiting_requests(player)
    assert w["waitingSeconds"] == pytest.approx(10.0)
    assert w["requests"] == 5 and w["walletHeadReads"] == 1
    assert w["byKind"] == {"stake status": 2, "active challenge": 1, "guess": 1, "stakes of the address": 1}


def test_the_figures_and_the_goal():
    recorded = {"players": [
        {"stakes": [stake(1001.0 + n, 11, 1024.0 + n / 10, server=1024.0) for n in range(10)], "requests": [],
         "walletCalls": []},
        {"stakes": [stake(1013.0 + n / 2, 12, 1036.0 + n / 5, server=1036.0) for n in range(10)], "requests": [],
         "walletCalls": []},
    ]}  # fmt: skip
    found = live.figures(recorded, BLOCKS, 2)
    samples = [n / 10 for n in range(10)] + [n / 5 for n in range(10)]
    assert found["samples"] == pytest.approx(sorted(samples))
    assert found["deepToConfirmedSeconds"]["p95"] == pytest.approx(percentile(samples, 95))  # 1.6: the 19th of 20
    assert found["deepToConfirmedSeconds"]["p50"] == pytest.approx(0.6)
    assert found["stakes"] == found["measured"] == found["confirmedOnPage"] == 20 and found["players"] == 2
    assert found["blocksAfterSignature"] == {"1": 20}
    # Each player's stakes overlap from its first POST's answer to its last "Confirmed".
    assert [p["waitingSeconds"] for p in found["perPlayer"]] == pytest.approx([1024.9 - 1001.1, 1037.8 - 1013.1])
    assert not live.meets_goal({**found, "goalSeconds": 1.5})  # p95 1.6 s
    fast = copy.deepcopy(recorded)
    for p in fast["players"]:
        for s in p["stakes"]:
            s["confirmedShownAt"] = (BLOCKS[s["blockNumber"] + 1] + 0.7) * 1000
    assert live.meets_goal(live.figures(fast, BLOCKS, 2))
    # Met only on at least 20 stakes from at least 2 players, every one shown Confirmed.
    fewer = copy.deepcopy(fast)
    fewer["players"][0]["stakes"].pop()
    assert not live.meets_goal(live.figures(fewer, BLOCKS, 2))
    alone = {"players": [{**fast["players"][0], "stakes": fast["players"][0]["stakes"] * 2}]}
    assert not live.meets_goal(live.figures(alone, BLOCKS, 2))
    lost = copy.deepcopy(fast)
    lost["players"][1]["stakes"][3]["confirmedShownAt"] = None
    assert not live.meets_goal(live.figures(lost, BLOCKS, 2))


def test_the_table_carries_the_figures_the_verdict_and_its_provenance():
    recorded = {"players": [{"stakes": [stake(1001.0 + n, 11, 1024.5, server=1024.2) for n in range(10)],
                             "requests": [], "walletCalls": []} for _ in range(2)]}  # fmt: skip
    provenance = {"command": "python -m bench.run live", "measuredAt": "2026-11-28T20:00:00Z",
                  "loadAverageBefore": [1, 2, 3], "loadAverage": [2, 2, 3]}  # fmt: skip
    result = {**live.figures(recorded, BLOCKS, 2), "goalSeconds": 1.5, **provenance}
    text = live.render(result)["live"]
    assert "| 20 by 2 players, 20 shown Confirmed |" in text
    assert "(goal: p95 ≤ 1.5 s) | 0.50 / 0.50 / 0.50 | met |" in text
    assert "| ↳ the deep-enough block → the site confirms it (the follower) | 0.20 / 0.20 / 0.20 |" in text
    assert "| 1 / 2 / 3 → 2 / 2 / 3 |" in text
    assert "| each player's, over its own wait | 0.00, 0.00 |" in text
    slow = {**result, "deepToConfirmedSeconds": {"p50": 1.2, "p95": 1.51, "max": 2.0}}
    assert "| 1.20 / 1.51 / 2.00 | **missed** |" in live.render(slow)["live"]


def test_the_plan_is_the_same_every_run_and_its_coordinates_are_distinct_and_canonical():
    plan = live.plan(20, 2, 12)
    assert plan == live.plan(20, 2, 12) and plan != live.plan(20, 2, 13)
    assert [len(p) for p in plan] == [10, 10]
    texts = [s["coordinates"] for p in plan for s in p]
    assert len(set(texts)) == 20
    assert all(not part.endswith("0") and len(part.split(".")[1]) == 6 for t in texts for part in t.split(", "))
    pauses = [s["pauseMs"] for p in plan for s in p]
    assert all(0 <= ms < 12_000 for ms in pauses) and max(pauses) - min(pauses) > 6_000  # spread over a block
