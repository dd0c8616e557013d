"""Benchmark 5 (docs/performance.md section 5): click to "Confirmed" on the page, live, in a real browser.

bench/live.mjs starts the e2e suite's stack (e2e/lib/stack.mjs) on the benchmarks' database and
Redis DB with CHAIN_CONFIRMATIONS=2, and makes claims through the real page in Debian's Chromium
with the suite's fake wallet, on 12-second blocks (Sepolia's pace) and then on 1-second blocks.
This module runs it and turns what it recorded into figures:

- block to "Confirmed": from the block that makes the payment deep enough (its inclusion block + 1)
  to the page's "My submissions" entry showing "Confirmed" (the goal: p95 <= 1.5 s on 12-second
  blocks), split into block to server (the claim's row confirmed, its `updated_at`) and server to
  page (the page's next look-up);
- POST to "Confirmed" beside the chain's floor (POST to the deep-enough block);
- what following costs: the page's follow-up GETs (status look-ups, the active challenge) per
  second per player with a pending claim, and their bytes (304s against full answers);
- whether the card's total bids followed the confirmed sum without a reload."""

import json
import os
import subprocess
import tempfile
from decimal import Decimal
from urllib.parse import urlparse

from . import live_signed
from .common import (
    DATABASE,
    HEAD_INTERVAL_SECONDS,
    PG_BASE,
    REDIS_URL,
    ROOT,
    append_run,
    command,
    log,
    uptime,
    write_result,
)
from .verify import percentile
from .worker_log import relay_runs as worker_log_runs
from .worker_log import task_stats

# BENCH_LIVE_PHASES: "blockSeconds:claims" per phase, paid by transfer, or "blockSeconds:claims:signed",
# paid by signature by players with no ETH (section 5b); run one after the other on one stack.
PHASES = os.environ.get("BENCH_LIVE_PHASES", "12:20,12:20:signed,1:10,1:10:signed")
PLAYERS = int(os.environ.get("BENCH_LIVE_PLAYERS", "2"))
# The ledger indexer's interval on the stack (bench/live.mjs): production's default unless given.
INDEX_SECONDS = os.environ.get("BENCH_LIVE_INDEX_SECONDS", "15")
ENV_NAMES = ("BENCH_LIVE_PHASES", "BENCH_LIVE_PLAYERS", "BENCH_LIVE_INDEX_SECONDS", "CHAIN_HEAD_INTERVAL_SECONDS")
GOAL_P95_SECONDS = 1.5
LOG_DIR = ROOT / "var" / "bench-live-logs"  # the stack's logs (its worker's: the relayer's runs)
TIMEOUT_SECONDS = 900


def stats(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p95": None, "max": None}
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": max(values)}


def shown_units(text: str) -> Decimal:
    """ "12.34 USDC" -> Decimal("12.34")."""
    return Decimal(text.removesuffix(" USDC").strip())


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total / 1000


def follow_cost(phase: dict) -> dict:
    """The follow-up GETs each page made while it had a claim pending (from the POST's answer to the
    "Confirmed" shown), per second of that time, and their bytes: each answer's bytes on the wire
    (headers and body, as the DevTools protocol counts them) and the request's headers."""
    count = seconds = answer_bytes = request_bytes = 0.0
    by_status: dict[str, list[int]] = {}
    by_kind: dict[str, int] = {}
    durations: list[float] = []
    silences: list[float] = []  # the longest wait between two follow-ups of a page while it had a claim pending
    for p, page in enumerate(phase["pages"]):
        own = [c for c in phase["claims"] if c["player"] == p and c["confirmedShownAt"]]
        intervals = [(c["postAnsweredAt"], c["confirmedShownAt"]) for c in own]
        seconds += union_seconds(intervals)
        followed = [r for r in page["requests"] if any(a <= r["at"] <= b for a, b in intervals)]
        starts = sorted(r["at"] for r in followed)
        if len(starts) > 1:
            silences.append(max(b - a for a, b in zip(starts, starts[1:], strict=False)) / 1000)
        for r in followed:
            durations.append((r["answeredAt"] - r["at"]) / 1000)
            count += 1
            size = r["wireBytes"]
            answer_bytes += size
            request_bytes += r.get("requestHeaderBytes") or 0
            by_status.setdefault(str(r["status"]), []).append(size)
            by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
    return {
        "pendingPlayerSeconds": seconds,
        "requests": int(count),
        "requestsPerSecondPerPendingPlayer": count / seconds if seconds else None,
        "answerBytesPerSecondPerPendingPlayer": answer_bytes / seconds if seconds else None,
        "requestHeaderBytesPerSecondPerPendingPlayer": request_bytes / seconds if seconds else None,
        "byKind": by_kind,
        "byKindPerSecondPerPendingPlayer": {k: v / seconds for k, v in by_kind.items()} if seconds else {},
        "byStatus": {s: {"count": len(v), "meanBytes": sum(v) / len(v)} for s, v in sorted(by_status.items())},
        "requestSeconds": stats(durations),
        "longestSilenceSeconds": max(silences) if silences else None,
    }


def bids_followed(phase: dict) -> dict:
    """Total bids on every page moved without a reload, only through confirmed sums, never backwards,
    to at least the sum with the page's own claims; the page that showed the last "Confirmed"
    ended on the final sum."""
    before = Decimal(phase["stakedSumBefore"])
    history = [before]
    for c in sorted(phase["claims"], key=lambda c: c["serverConfirmedAt"] or 0):
        history.append(history[-1] + Decimal(c["stake"]))
    sums = set(history)
    problems = []
    for p, page in enumerate(phase["pages"]):
        shown = [shown_units(b["text"]) for b in page["bids"]]
        own = sum((Decimal(c["stake"]) for c in phase["claims"] if c["player"] == p), Decimal(0))
        if not shown or shown[-1] < before + own:
            problems.append(f"page {p}: total bids ended at {shown[-1] if shown else None}, below {before + own}")
        if any(b < a for a, b in zip(shown, shown[1:], strict=False)):
            problems.append(f"page {p}: total bids went backwards: {shown}")
        strays = [s for s in shown if s not in sums]
        if strays:
            problems.append(f"page {p}: total bids showed sums never confirmed: {strays}")
    if phase["finalBidsShownAt"] is None:
        problems.append(f"page {phase['lastPage']} never showed the final {phase['finalBidsText']}")
    last = max(c["confirmedShownAt"] for c in phase["claims"] if c["confirmedShownAt"])
    return {
        "followed": not problems,
        "problems": problems,
        "final": phase["finalBidsText"],
        "finalShownSecondsAfterLastConfirmed": (phase["finalBidsShownAt"] - last) / 1000
        if phase["finalBidsShownAt"]
        else None,
        "reloads": sum(page["reloads"] for page in phase["pages"]),
    }


def _errors(phase: dict) -> list[str]:
    return [e for page in phase["pages"] for e in page["errors"]]


def figures(phase: dict, head_poll: dict) -> dict:
    claims = phase["claims"]
    shown = [c for c in claims if c["confirmedShownAt"] and c["deepBlockAt"]]
    block_to_shown = [(c["confirmedShownAt"] - c["deepBlockAt"]) / 1000 for c in shown]
    block_to_server = [(c["serverConfirmedAt"] - c["deepBlockAt"]) / 1000 for c in shown if c["serverConfirmedAt"]]
    server_to_shown = [(c["confirmedShownAt"] - c["serverConfirmedAt"]) / 1000 for c in shown if c["serverConfirmedAt"]]
    post_to_shown = [(c["confirmedShownAt"] - c["postAt"]) / 1000 for c in shown]
    floor = [max(0.0, (c["deepBlockAt"] - c["postAt"]) / 1000) for c in shown]
    failed = [c["hash"] for c in claims if c["status"] != "confirmed" or not c["confirmedShownAt"]]
    return {
        "blockSeconds": phase["blockSeconds"],
        "confirmations": phase["confirmations"],
        "players": phase["players"],
        "claims": len(claims),
        "confirmedOnPage": len(shown),
        "failed": failed,
        "wallSeconds": phase["wallSeconds"],
        "blockToConfirmedSeconds": stats(block_to_shown),
        "blockToServerSeconds": stats(block_to_server),
        "serverToPageSeconds": stats(server_to_shown),
        "postToConfirmedSeconds": stats(post_to_shown),
        "chainFloorSeconds": stats(floor),
        "postToConfirmedAboveFloorSeconds": stats([a - b for a, b in zip(post_to_shown, floor, strict=True)]),
        "deepBlockSeenWithinMs": max((c["deepBlockPollGapMs"] or 0) for c in shown) if shown else None,
        "follow": follow_cost(phase),
        "totalBids": bids_followed(phase),
        "pageErrors": _errors(phase),
        "samples": sorted(block_to_shown),
        "raw": claims,
    }


def summary(result: dict) -> dict:
    """This run in a line (bench/results/live-runs.json, docs/performance.md sections 5 and 5b)."""
    phases = []
    for p in result["phases"]:
        line = {"blockSeconds": p["blockSeconds"], "signed": bool(p.get("signed")), "claims": p["claims"],
                "confirmedOnPage": p["confirmedOnPage"],
                "headWatcherExpired": p.get("worker", {}).get("discarded", {}).get("chain.watch_head", 0)}  # fmt: skip
        if p.get("signed"):
            line.update(aboveFloor=p["aboveFloorSeconds"], inclusionIndex=p["inclusionIndex"],
                        signatureToRelaySent=p["signatureToRelaySentSeconds"],
                        deepBlockToServer=p["deepBlockToServerSeconds"])  # fmt: skip
        else:
            line.update(blockToConfirmed=p["blockToConfirmedSeconds"], blockToServer=p["blockToServerSeconds"])
        phases.append(line)
    return {
        "measuredAt": result["measuredAt"],
        "command": result["command"],
        "loadAverageBefore": result["loadAverageBefore"],
        "loadAverage": result["loadAverage"],
        "indexSeconds": INDEX_SECONDS,
        "meetsGoal": result["meetsGoal"],
        "signedMeetsGoal": result["signedMeetsGoal"],
        "phases": phases,
    }


def run() -> dict:
    load_before, uptime_before = [round(x, 2) for x in os.getloadavg()], uptime()
    redis = urlparse(REDIS_URL)
    if (redis.hostname, redis.port or 6379) != ("127.0.0.1", 6379):
        raise RuntimeError("bench/live.mjs uses the Redis server on 127.0.0.1:6379 (BENCH_REDIS_URL names another)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "live.json")
        env = {
            **os.environ,
            "CHAIN_HEAD_INTERVAL_SECONDS": HEAD_INTERVAL_SECONDS,
            "E2E_DB_NAME": DATABASE,
            "E2E_REDIS_DB": (redis.path or "/0").lstrip("/") or "0",
            "E2E_PG_ADMIN_URL": f"{PG_BASE}/postgres",
            "E2E_LOG_DIR": str(LOG_DIR),
            "BENCH_LIVE_OUT": out,
            "BENCH_LIVE_PHASES": PHASES,
            "BENCH_LIVE_PLAYERS": str(PLAYERS),
            "BENCH_LIVE_INDEX_SECONDS": INDEX_SECONDS,
        }
        script = str(ROOT / "bench" / "live.mjs")
        subprocess.run(["node", script], cwd=ROOT, env=env, check=True, timeout=TIMEOUT_SECONDS)
        recorded = json.loads(open(out).read())
    blocks = {int(n): at for n, at in recorded["blocks"].items()}
    worker_log = (LOG_DIR / "celery.log").read_text(errors="replace")
    runs = worker_log_runs(worker_log)
    phases = []
    for phase in recorded["phases"]:
        if phase.get("signed"):
            phases.append({**live_signed.signed_figures(phase, blocks, runs), "follow": follow_cost(phase),
                           "totalBids": bids_followed(phase), "pageErrors": _errors(phase)})  # fmt: skip
        else:
            phases.append(figures(phase, recorded["headPoll"]))
        # What the stack's worker did meanwhile (the head watcher's messages that expired unrun).
        phases[-1]["worker"] = task_stats(worker_log, phase["startedAt"], phase["endedAt"])
    transfers = [p for p in phases if not p.get("signed")]
    main = next((p for p in transfers if p["blockSeconds"] == 12), transfers[0] if transfers else None)
    signed_main = next((p for p in phases if p.get("signed") and p["blockSeconds"] == 12), None)
    p95 = main["blockToConfirmedSeconds"]["p95"] if main else None
    for p in phases:
        if p.get("signed"):
            a, f = p["aboveFloorSeconds"], p["follow"]
            log(
                f"{p['blockSeconds']}-s blocks, {p['confirmedOnPage']}/{p['claims']} stakes paid by signature: "
                f"signature to Confirmed above the floor p50 {a['p50']:.2f} s, p95 {a['p95']:.2f} s, max "
                f"{a['max']:.2f} s; blocks after the signature {p['inclusionIndex']}; total bids followed: "
                f"{p['totalBids']['followed']}"
            )
            continue
        b, f = p["blockToConfirmedSeconds"], p["follow"]
        log(
            f"{p['blockSeconds']}-s blocks, {p['confirmedOnPage']}/{p['claims']} claims: block to Confirmed on "
            f"the page p50 {b['p50']:.2f} s, p95 {b['p95']:.2f} s, max {b['max']:.2f} s; POST to Confirmed p50 "
            f"{p['postToConfirmedSeconds']['p50']:.2f} s (floor {p['chainFloorSeconds']['p50']:.2f} s); "
            f"{f['requestsPerSecondPerPendingPlayer']:.2f} req/s per pending player; total bids followed: "
            f"{p['totalBids']['followed']}"
        )
    path = write_result(
        "live",
        {
            "command": command("live", *ENV_NAMES),
            "loadAverageBefore": load_before,
            "uptimeBefore": uptime_before,
            "uptime": uptime(),
            "setup": {
                "stack": "e2e/lib/stack.mjs: gunicorn (2 workers x 2 threads), 1 Celery worker (concurrency 2) with "
                f"its embedded beat (head watcher every {HEAD_INTERVAL_SECONDS} s, the ledger indexer every "
                f"{INDEX_SECONDS} s: CHAIN_INDEX_INTERVAL_SECONDS, production's default is 15), production settings "
                "over loopback http, "
                f"PostgreSQL database {DATABASE}, {REDIS_URL}",
                "chain": "anvil with the test USDC, interval mining set per phase (evm_setIntervalMining, as "
                "`anvil --block-time`), CHAIN_CONFIRMATIONS=2",
                "browser": f"Debian's Chromium (headless) via playwright-core, one browser, {PLAYERS} contexts "
                "(players), each with the e2e fake wallet; each player clicks its next claim as soon as the page "
                "has POSTed the last, so claims overlap and each page follows several at once",
                "signed": "the phases paid by signature (section 5b) have players of their own (other development "
                'accounts) holding the test USDC and no ETH at all (anvil_setBalance 0); each chooses "Sign the '
                "payment\" in the confirm dialog, the fake wallet signs through anvil's eth_signTypedData_v4 (the "
                "moment it answers the page is the signature's time), the page POSTs the claim with the "
                "authorization, and the stack's worker (queues `celery,relay`) relays it with the development "
                "relayer key; every relay setting its default",
                "clock": "Date.now() on this machine everywhere: the page's MutationObserver (Confirmed shown, "
                "total bids), its wrapped fetch (the POST), and a worker thread polling anvil's head every "
                f"{recorded['headPoll']['intervalMs']} ms (block first seen = block produced; anvil's block "
                "timestamps are whole seconds); the server's confirmation time is the claim row's updated_at",
            },
            "headPoll": recorded["headPoll"],
            # Every block the head poll saw and when (ms): the figures can be computed again from the raw claims.
            "blocks": recorded["blocks"],
            "goals": {
                "blockToConfirmedP95SecondsAtMost": GOAL_P95_SECONDS,
                "signedAboveFloorP95SecondsAtMost": live_signed.GOAL_ABOVE_FLOOR_P95_SECONDS,
            },
            "meetsGoal": p95 is not None
            and p95 <= GOAL_P95_SECONDS
            and not main["failed"]
            and main["confirmedOnPage"] == main["claims"]
            and all(p["totalBids"]["followed"] for p in transfers),
            "signedMeetsGoal": live_signed.meets_goal(signed_main)
            and all(p["totalBids"]["followed"] for p in phases if p.get("signed")),
            "phases": phases,
        },
    )
    if not any(name in os.environ for name in ("BENCH_LIVE_PHASES", "BENCH_LIVE_PLAYERS")):
        append_run("live", summary(json.loads(path.read_text())))
    return path


if __name__ == "__main__":
    run()
