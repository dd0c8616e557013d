"""Benchmark: signature to "Confirmed" in the page on 12-second blocks (docs/performance.md section 4).

The Procfile's own `web`, `worker` and `beat` (as bench/relay.py runs them, under the production
settings with the built bundle served by whitenoise) on anvil mining a block every 12 seconds, with
CHAIN_CONFIRMATIONS=2 and the development relayer key. PLAYERS players (anvil's unlocked accounts 1..,
holding test USDC and no ETH) each open the real page in Debian's Chromium at a phone's 390 px with
the e2e suite's wallet (bench/live.mjs, which drives e2e/lib's browser, wallet and game helpers) and
stake by signature one stake after another: a pause, the form, "Sign the stake (no ETH needed)",
Confirm, then wait until the row says "Confirmed in the pot (stake #N)" before the next. The pauses
are drawn from a seeded generator over a block interval, so the signatures fall at every point of it.

Each stake's instants, all on this machine's clock (seconds since the epoch):

- t_sign: the wallet answered eth_signTypedData_v4 (bench/live.mjs's wallet, Date.now());
- t_posted: the page's POST /api/responses answered;
- t_sent: the relayer sent its transaction (chain_relaytransaction.sent_at);
- t_mined: the block holding its Staked event was first seen (the head polled every 20 ms here);
- t_deep: the block that makes it CHAIN_CONFIRMATIONS deep was first seen: the chain's floor, before
  which no site can say "Confirmed";
- t_server: the site's database first had it at or below the follower's confirmed block (polled every
  50 ms here): what GET /api/responses/{commitment} answers "confirmed" from;
- t_confirmed: the page's row first showed "Confirmed in the pot" (a MutationObserver in the page,
  performance.timeOrigin + performance.now()).

The goal is on t_confirmed - t_deep (p95 at most GOAL_SECONDS). The requests each player's page sends
to the site while one of its stakes waits (from its POST's answer to its "Confirmed") are counted
from the browser's network events, per second of waiting."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

from devtools import processes, procfile

from . import node, tables
from .common import (
    DATABASE,
    PG_BASE,
    ROOT,
    anvil,
    collectstatic,
    command,
    fresh_database,
    in_django,
    load_average,
    log,
    log_dir,
    rpc,
    snapshot_bundle,
    stats,
    write_result,
)
from .relay import procfile_process

COUNT = int(os.environ.get("BENCH_LIVE_COUNT", "20"))
PLAYERS = int(os.environ.get("BENCH_LIVE_PLAYERS", "2"))
SEED = int(os.environ.get("BENCH_LIVE_SEED", "12"))
BLOCK_SECONDS = 12
CONFIRMATIONS = 2
GOAL_SECONDS = 1.5
# What the goal needs measured: at least this many stakes, from at least this many players.
GOAL_MIN_STAKES = 20
GOAL_MIN_PLAYERS = 2
STAKE = "1"  # USDC, the challenge's minimum
# Each stake's wait for its "Confirmed", and the whole browser run's (the driver is stopped after it).
STAKE_TIMEOUT_SECONDS = 120
RUN_TIMEOUT_SECONDS = 30 * 60
SERVER_POLL_SECONDS = 0.05
DRIVER = ROOT / "bench" / "live.mjs"
ENV_NAMES = ("BENCH_LIVE_COUNT", "BENCH_LIVE_PLAYERS", "BENCH_LIVE_SEED")


# --- The plan (pure) ---------------------------------------------------------------------------


def plan(count: int, players: int, seed: int, *, block_seconds: float = BLOCK_SECONDS) -> list[list[dict]]:
    """Each player's stakes in order, dealt round robin: distinct canonical coordinates (none ends in
    a zero the page would drop), the stake, and the pause before its click, uniform over a block
    interval from a generator seeded with `seed` (the same plan every run)."""
    draw = random.Random(seed)
    out: list[list[dict]] = [[] for _ in range(players)]
    for n in range(count):
        lat = Decimal("-33.850001") - Decimal(n) * Decimal("0.0001")
        lon = Decimal("151.210001") + Decimal(n % players) * Decimal("0.01")
        pause = round(draw.uniform(0, block_seconds), 3)
        out[n % players].append({"n": n, "coordinates": f"{lat}, {lon}", "stake": STAKE, "pauseMs": int(pause * 1000)})
    return out


# --- The figures (pure) ------------------------------------------------------------------------


def first_block_after(blocks: dict[int, float], at: float) -> int | None:
    """The first block seen after the instant `at`."""
    later = [n for n, seen in blocks.items() if seen > at]
    return min(later) if later else None


def timeline(stake: dict, blocks: dict[int, float], confirmations: int) -> dict:
    """One stake's instants and intervals (seconds). `stake` carries the driver's instants (ms) and
    what the chain and the site said (block, relay sent, server confirmed, in seconds)."""
    ms = lambda key: None if stake.get(key) is None else stake[key] / 1000  # noqa: E731
    sign, posted, confirmed = ms("signedAt"), ms("postAnsweredAt"), ms("confirmedShownAt")
    block = stake.get("blockNumber")
    mined = blocks.get(block) if block is not None else None
    deep = blocks.get(block + confirmations - 1) if block is not None else None
    server, sent = stake.get("serverConfirmedAt"), stake.get("relaySentAt")
    first = first_block_after(blocks, sign) if sign is not None else None

    def between(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else b - a

    return {
        "signatureToPosted": between(sign, posted),
        "signatureToSent": between(sign, sent),
        "signatureToMined": between(sign, mined),
        "signatureToDeep": between(sign, deep),
        "signatureToConfirmed": between(sign, confirmed),
        "deepToServer": between(deep, server),
        "serverToPage": between(server, confirmed),
        "deepToConfirmed": between(deep, confirmed),
        "blocksAfterSignature": None if first is None or block is None else block - first + 1,
    }


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of the intervals."""
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def request_kind(method: str, url: str) -> str:
    """What a request of the page to the site is, by its method and path."""
    path = urlsplit(url).path
    if path.startswith("/api/responses/") and len(path) == len("/api/responses/") + 64 and method == "GET":
        return "stake status"
    if path == "/api/challenges/active" and method == "GET":
        return "active challenge"
    if path == "/api/responses/guess" and method == "POST":
        return "guess"
    if path in ("/api/responses", "/api/responses/") and method == "POST":
        return "stake"
    if path in ("/api/responses", "/api/responses/") and method == "GET":
        return "stakes of the address"
    return "other"


def waiting_requests(player: dict) -> dict:
    """The requests one player's page sent while a stake of its waited (its POST answered to its
    "Confirmed" shown): how long it waited, how many, of which kinds."""
    intervals = [(s["postAnsweredAt"], s["confirmedShownAt"]) for s in player["stakes"]
                 if s.get("postAnsweredAt") is not None and s.get("confirmedShownAt") is not None]  # fmt: skip
    inside = [r for r in player["requests"] if any(a < r["at"] <= b for a, b in intervals)]
    by_kind: dict[str, int] = {}
    for r in inside:
        kind = request_kind(r["method"], r["url"])
        by_kind[kind] = by_kind.get(kind, 0) + 1
    heads = [c for c in player.get("walletCalls", []) if c["method"] == "eth_blockNumber"
             and any(a < c["at"] <= b for a, b in intervals)]  # fmt: skip
    return {"waitingSeconds": union_seconds(intervals) / 1000, "requests": len(inside), "byKind": by_kind,
            "walletHeadReads": len(heads)}  # fmt: skip


def figures(recorded: dict, blocks: dict[int, float], confirmations: int) -> dict:
    """Everything reported, from the driver's record joined with the chain's and the site's times."""
    stakes = [s for p in recorded["players"] for s in p["stakes"]]
    lines = [timeline(s, blocks, confirmations) for s in stakes]

    def of(key: str) -> dict:
        return stats([t[key] for t in lines if t[key] is not None])

    after: dict[str, int] = {}
    for t in lines:
        if t["blocksAfterSignature"] is not None:
            after[str(t["blocksAfterSignature"])] = after.get(str(t["blocksAfterSignature"]), 0) + 1
    waits = [waiting_requests(p) for p in recorded["players"]]
    seconds = sum(w["waitingSeconds"] for w in waits)
    kinds: dict[str, int] = {}
    for w in waits:
        for kind, n in w["byKind"].items():
            kinds[kind] = kinds.get(kind, 0) + n
    per_second = lambda n: n / seconds if seconds else None  # noqa: E731
    return {
        "stakes": len(stakes),
        "players": len(recorded["players"]),
        "confirmedOnPage": sum(1 for s in stakes if s.get("confirmedShownAt") is not None),
        "measured": sum(1 for t in lines if t["deepToConfirmed"] is not None),
        "deepToConfirmedSeconds": of("deepToConfirmed"),
        "deepToServerSeconds": of("deepToServer"),
        "serverToPageSeconds": of("serverToPage"),
        "signatureToPostedSeconds": of("signatureToPosted"),
        "signatureToSentSeconds": of("signatureToSent"),
        "signatureToMinedSeconds": of("signatureToMined"),
        "signatureToDeepSeconds": of("signatureToDeep"),
        "signatureToConfirmedSeconds": of("signatureToConfirmed"),
        "blocksAfterSignature": dict(sorted(after.items(), key=lambda kv: int(kv[0]))),
        "waitingSeconds": seconds,
        "requestsPerSecondPerWaitingPlayer": per_second(sum(w["requests"] for w in waits)),
        "requestsPerSecondByKind": {k: per_second(n) for k, n in sorted(kinds.items())},
        "walletHeadReadsPerSecond": per_second(sum(w["walletHeadReads"] for w in waits)),
        "perPlayer": [
            {**w, "requestsPerSecond": w["requests"] / w["waitingSeconds"] if w["waitingSeconds"] else None}
            for w in waits
        ],  # fmt: skip
        "samples": sorted(t["deepToConfirmed"] for t in lines if t["deepToConfirmed"] is not None),
        "timelines": lines,
    }


def meets_goal(result: dict) -> bool:
    p95 = result["deepToConfirmedSeconds"]["p95"]
    return (
        p95 is not None
        and p95 <= GOAL_SECONDS
        and result["stakes"] >= GOAL_MIN_STAKES
        and result["players"] >= GOAL_MIN_PLAYERS
        and result["measured"] == result["stakes"]
    )


# --- The run -----------------------------------------------------------------------------------


class ServerWatch:
    """The site's database polled every SERVER_POLL_SECONDS in a thread: when each stake of the
    challenge was first seen confirmed (its block at or below the follower's confirmed block)."""

    def __init__(self, challenge: int) -> None:
        self.challenge = challenge
        self.confirmed: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        import psycopg

        with psycopg.connect(f"{PG_BASE}/{DATABASE}", autocommit=True) as conn:
            while not self._stop.is_set():
                rows = conn.execute(
                    "SELECT s.commitment FROM responses_stake s, challenges_chainclock c WHERE c.id = 1 "
                    "AND s.challenge_id = %s AND s.block_number <= c.confirmed_block",
                    [self.challenge],
                ).fetchall()
                now = time.time()
                for (commitment,) in rows:
                    self.confirmed.setdefault(commitment.lower().removeprefix("0x"), now)
                self._stop.wait(SERVER_POLL_SECONDS)

    def __enter__(self) -> ServerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def relay_sent(commitments: list[str]) -> dict[str, float]:
    """When the relayer first sent each stake (its record's sent_at), by commitment."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/{DATABASE}") as conn:
        rows = conn.execute(
            "SELECT s.commitment, extract(epoch FROM t.sent_at)::float8 FROM chain_relaytransaction t "
            "JOIN chain_potcall c ON t.call_id = c.id JOIN responses_signedstake s ON c.signed_stake_id = s.id "
            "WHERE s.commitment = ANY(%s) AND t.sent_at IS NOT NULL",
            [commitments],
        ).fetchall()
    sent: dict[str, float] = {}
    for commitment, at in rows:
        key = commitment.lower().removeprefix("0x")
        sent[key] = min(at, sent.get(key, at))
    return sent


def drive(spec: dict, workdir: Path) -> dict:
    """bench/live.mjs with `spec`, in a session of its own, stopped by its process group when it is
    done, fails or outlives RUN_TIMEOUT_SECONDS (playwright closes its Chromium on the SIGTERM)."""
    spec_file, out = workdir / "spec.json", workdir / "recorded.json"
    spec_file.write_text(json.dumps({**spec, "out": str(out)}))
    process = processes.start(["node", str(DRIVER), str(spec_file)], log=workdir / "driver.log", cwd=ROOT,
                              new_session=True)  # fmt: skip
    try:
        code = process.wait(timeout=RUN_TIMEOUT_SECONDS)
    finally:
        processes.stop(process, timeout=20, group=True)
    if code != 0:
        raise RuntimeError(f"bench/live.mjs exited {code}: {processes.tail([workdir / 'driver.log'])}")
    return json.loads(out.read_text())


def run() -> dict:
    load_before = load_average()
    workdir = log_dir("live")
    snapshot_bundle()
    schedule = plan(COUNT, PLAYERS, SEED)
    with anvil() as (url, _anvil):
        info = node.setup_chain(url)
        accounts = rpc(url, "eth_accounts")[1 : PLAYERS + 1]
        if len(accounts) < PLAYERS:
            raise RuntimeError(f"anvil has {len(accounts)} player accounts, {PLAYERS} asked")
        for account in accounts:
            rpc(url, "anvil_setBalance", [account, "0x0"])  # the players hold no ETH
        per_player = max(len(s) for s in schedule)
        chain = node.chain_env(info, url, CHAIN_CONFIRMATIONS=str(CONFIRMATIONS),
                               RELAY_MAX_PER_ADDRESS_PER_DAY=str(max(20, per_player)))  # fmt: skip
        env = fresh_database(**chain, LOG_LEVEL="INFO")
        collectstatic(env)
        challenge = in_django("bench.site", env, "open", url, "3600")["challenge"]
        node.set_pace(url, BLOCK_SECONDS)
        with (
            node.HeadWatch(url) as head,
            ServerWatch(challenge) as server,
            procfile.web(env, log=workdir / "web.log") as web,
            procfile_process("worker", env, log=workdir / "worker.log", cwd=processes.ROOT, ready=" ready."),
            procfile_process("beat", env, log=workdir / "beat.log", cwd=workdir, ready="beat: Starting"),
        ):
            spec = {
                "baseUrl": web.base,
                "rpcUrl": url,
                "chainId": info["chainId"],
                "stakeTimeoutMs": STAKE_TIMEOUT_SECONDS * 1000,
                "players": [{"account": a, "stakes": s} for a, s in zip(accounts, schedule, strict=True)],
            }
            log(f"{COUNT} stakes by {PLAYERS} players through the page at {web.base}, challenge #{challenge}")
            recorded = drive(spec, workdir)
            time.sleep(1)  # the last confirmations land in the watches
            blocks = dict(head.blocks)
            server_confirmed = dict(server.confirmed)
        staked = node.staked_logs(url, info["potAddress"], challenge, from_block=0, to_block=max(blocks))
    by_commitment = {s["commitment"]: s for s in staked}
    commitments = [s["commitment"] for p in recorded["players"] for s in p["stakes"] if s.get("commitment")]
    sent = relay_sent(["0x" + c for c in commitments] + commitments)
    for p in recorded["players"]:
        for s in p["stakes"]:
            found = by_commitment.get(s.get("commitment") or "")
            s["blockNumber"] = found["blockNumber"] if found else None
            s["seq"] = found["seq"] if found else None
            s["serverConfirmedAt"] = server_confirmed.get(s.get("commitment") or "")
            s["relaySentAt"] = sent.get(s.get("commitment") or "")
    found = figures(recorded, blocks, CONFIRMATIONS)
    for p in recorded["players"]:  # kept counted (perPlayer), not request by request
        del p["requests"], p["walletCalls"]
        for s in p["stakes"]:
            s["shown"] = s["shown"]["stages"]
    d = found["deepToConfirmedSeconds"]
    log(
        f"{found['measured']} of {found['stakes']} stakes: the deep-enough block to Confirmed in the page p50 "
        f"{tables.number(d['p50'], 2)} s, p95 {tables.number(d['p95'], 2)} s, max {tables.number(d['max'], 2)} s; "
        f"{tables.number(found['requestsPerSecondPerWaitingPlayer'], 2)} requests/s per waiting player"
    )
    result = {
        "command": command("live", *ENV_NAMES),
        "setup": {
            "count": COUNT,
            "players": PLAYERS,
            "seed": SEED,
            "blockSeconds": BLOCK_SECONDS,
            "confirmations": CONFIRMATIONS,
            "viewport": "390 x 844",
            "pauses": "uniform over one block interval before each click, seeded",
        },
        **found,
        "goalSeconds": GOAL_SECONDS,
        "pageErrors": [e for p in recorded["players"] for e in p.get("errors", [])],
        "blocks": {str(n): at for n, at in sorted(blocks.items())},
        "raw": recorded,
    }
    result["meetsGoal"] = meets_goal(result)
    return write_result("live", result, load_before=load_before)


# --- The tables --------------------------------------------------------------------------------


def _spread(s: dict) -> str:
    return " / ".join(tables.number(s.get(k), 2) for k in ("p50", "p95", "max"))


def render(result: dict) -> dict[str, str]:
    kinds = result["requestsPerSecondByKind"]
    blocks = ", ".join(f"{k}: {v}" for k, v in result["blocksAfterSignature"].items())
    goal = result["deepToConfirmedSeconds"]
    rows = [
        ["stakes by signature, through the page", f"{result['stakes']} by {result['players']} players, "
         f"{result['confirmedOnPage']} shown Confirmed", ""],
        ["**the deep-enough block → \"Confirmed\" in the page** (goal: p95 ≤ "
         f"{tables.number(result['goalSeconds'], 1)} s)", _spread(goal), tables.met(meets_goal(result))],
        ["↳ the deep-enough block → the site confirms it (the follower)", _spread(result["deepToServerSeconds"]), ""],
        ["↳ the site confirms it → the page shows it (the page's following)", _spread(result["serverToPageSeconds"]),
         ""],
        ["signature → the POST answered", _spread(result["signatureToPostedSeconds"]), ""],
        ["signature → the relayer's send", _spread(result["signatureToSentSeconds"]), ""],
        ["signature → mined (its block first seen)", _spread(result["signatureToMinedSeconds"]), ""],
        ["signature → the deep-enough block (the chain's floor)", _spread(result["signatureToDeepSeconds"]), ""],
        ["signature → \"Confirmed\" in the page", _spread(result["signatureToConfirmedSeconds"]), ""],
        ["mined in the block after the signature: 1st, 2nd, …", blocks, ""],
    ]  # fmt: skip
    follow = [
        ["all", tables.number(result["requestsPerSecondPerWaitingPlayer"], 2)],
        ["each player's, over its own wait", ", ".join(tables.number(p["requestsPerSecond"], 2)
                                                         for p in result["perPlayer"])],
        *[[kind, tables.number(rate, 2)] for kind, rate in kinds.items()],
        ["the wallet's `eth_blockNumber` (the player's own node, not the site)",
         tables.number(result["walletHeadReadsPerSecond"], 2)],
    ]  # fmt: skip
    text = (
        tables.table(["figure (s: p50 / p95 / max)", "measured", "goal"], rows)
        + "\n\n"
        + tables.table(
            [f"requests to the site per second of a player waiting ({result['waitingSeconds']:.0f} s in all)", "/s"],
            follow,
            right=(1,),
        )
        + "\n\n"
        + tables.provenance(result)
    )
    return {"live": text}
