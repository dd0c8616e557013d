"""docs/performance.md's sections on stakes paid by signature and relayed (docs/protocol.md section 2a):
the burst of 100 authorizations posted at once (bench/relay_burst.py, with where the relayer's time
goes per stake, bench/relay_profile.py), and signature to "Confirmed" on the page
(bench/live.mjs's signed phases, bench/live_signed.py)."""

from __future__ import annotations

from collections.abc import Callable

ETH = 10**18

# What each statement of the relayer's sending run is, per claim (chain/relayer.py, _Sender.one).
STATEMENTS = {
    "SELECT chain_relayeraccount FOR UPDATE": "the account row's lock (one sender at a time)",
    "UPDATE chain_relayeraccount": "the next nonce written",
    "SELECT responses_stakeauthorization": "the oldest queued claim",
    "SELECT challenges_challenge": "its challenge still open",
    "SELECT chain_relaytransaction": "the payer's relays and the relayer's spending in the last 24 hours (two "
    "aggregates)",
    "INSERT chain_relaytransaction": "the transaction recorded",
    "UPDATE responses_stakeauthorization": "the claim moved to sent",
}


def _s(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f} s"


def _num(value: float, digits: int) -> str:
    return f"{round(value, digits) + 0.0:.{digits}f}"  # + 0.0: never "-0.00"


def _trio(d: dict, digits: int = 2, unit: str = " s") -> str:
    return " / ".join("–" if d.get(q) is None else _num(d[q], digits) for q in ("p50", "p95", "max")) + unit


def _eth(wei: float) -> str:
    return f"{wei / ETH:.6f} ETH"


def _blocks(used: dict) -> str:
    return ", ".join(f"block {n}: {k}" for n, k in used.items())


def _sending(b: dict) -> str:
    runs = [r for r in b["relayRuns"] if r["sent"]]
    if not runs:
        return "–"
    seconds, sent = sum(r["seconds"] for r in runs), sum(r["sent"] for r in runs)
    return (
        f"{len(runs)} run(s) sent {sent} in {seconds:.2f} s: {seconds / sent * 1000:.0f} ms per stake "
        f"({len(b['relayRuns']) - len(runs)} more runs found another sending or nothing queued)"
    )


def _gwei(b: dict) -> str:
    return _trio({k: v / 1e9 for k, v in b["effectiveGasPriceWei"].items()}, 3, " gwei")


def _cost(b: dict) -> str:
    return f"{_eth(b['costWei']['p50'])} / {_eth(b['costWei']['max'])}; {_eth(b['costWei']['sum'])}"


BURST_ROWS: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("released after the last block", lambda b: _s(b["releasedAfterBlockSeconds"])),
    ("POST answered", lambda b: _trio(b["postAnsweredSeconds"])),
    (
        "the relayer's sends (sent_at): first, then p50 / p95 / last",
        lambda b: f"{_s(b['relaySentSeconds']['first'])}; {_trio(b['relaySentSeconds'])}",
    ),
    ("between two sends, one after another", lambda b: _trio(b["sendSpacingMs"], 0, " ms")),
    ("`chain.relay_send` runs (the worker's log)", _sending),
    (
        "**blocks used** (1 = the first block after the POSTs; goal: {goal} at most on 12-second blocks)",
        lambda b: f"**{_blocks(b['blocksUsed'])}**",
    ),
    ("each of those blocks produced at", lambda b: ", ".join(f"{v:.2f} s" for v in b["blockSeenSeconds"].values())),
    ("**the last stake mined** (its block first seen)", lambda b: f"**{_s(b['lastInclusionSeconds'])}**"),
    ("claims confirmed (the claim row)", lambda b: _trio(b["confirmedSeconds"])),
    ("**the last claim confirmed**", lambda b: f"**{_s(b['lastConfirmedSeconds'])}**"),
    ("**the relayer's gas per stake** (receipts' gasUsed)", lambda b: f"**{_trio(b['gasUsed'], 0, ' gas')}**"),
    ("effective gas price", _gwei),
    ("cost per stake, p50 / max; all stakes", _cost),
    (
        "the relayer's ETH balance, from before the POSTs to the last block",
        lambda b: f"−{_eth(b['relayerBalanceDeltaWei'])}",
    ),
    (
        "reserved against RELAY_MAX_WEI_PER_DAY while in flight (gas limit x maxFeePerGas)",
        lambda b: _eth(b["reservedInFlightWei"]),
    ),
)


def relay_burst_section(r: dict, la: Callable[[dict], str], runs: list[dict] | None = None) -> list[str]:
    bursts = r["bursts"]
    main = next((b for b in bursts if b["blockSeconds"] == 12), bursts[0])
    goal, claims = r["goals"]["blocksAtMost"], r["goals"]["claims"]
    met = "met" if r["meetsGoal"] else "**missed**"
    direct = r["directTransferGas"]

    def row(name: str, cell: Callable[[dict], str]) -> str:
        return f"| {name} | " + " | ".join(cell(b) for b in bursts) + " |"

    def reconciled(b: dict) -> str:
        c = b["reconciled"]
        n = c["nonces"]
        text = (
            f"{c['answered201']} answered 201 ({', '.join(f'{k}: {v}' for k, v in b['relayStatusAtPost'].items())}); "
            f"{c['storedClaims']} claims stored; {c['relayTransactions']} relayer transactions, nonces {n['first']} "
            f"to {n['last']} (missing {len(n['missing'])}, repeated {len(n['repeated'])}), {c['relayResent']} "
            f"re-sent; {c['authorizationUsedLogs']} AuthorizationUsed logs, each nonce once, each followed by its "
            f"Transfer ({c['pairedTransfers']} of {c['transferLogs']}); treasury +{c['treasuryDeltaUnits']:,} units "
            f"= stakes {c['stakesSumUnits']:,}; {c['confirmed']} confirmed"
        )
        return ("yes: " if c["nothingLostOrDoubled"] else "**no**: " + "; ".join(c["problems"]) + ". ") + text

    lines = [
        f"## 7. Relayed stakes: {claims} authorizations posted at once",
        "",
        f"Goal: {claims} payers holding test USDC and no ETH each POST one claim paid by a signed authorization "
        "(docs/protocol.md section 2a, 3.3a) at the same instant, through the Procfile's web process, with its "
        "worker (the default and `relay` queues) and beat, on 12-second blocks: every stake mined within "
        f"{goal} blocks of the POSTs, none lost or doubled (the POST answers, the stored claims, the relayer's "
        "transactions and nonces, the token's logs and the treasury's balance reconcile to the unit), every claim "
        f"confirmed: {met} (blocks used on 12-second blocks: {_blocks(main['blocksUsed'])}). The same burst on "
        "1-second blocks, on the same servers, has no goal: it shows how many blocks the relayer's sending spans.",
        "",
        f"Command: `{r['command']}` · measured {r['measuredAt']} (load average {la(r)}; before: "
        f"{' / '.join(str(x) for x in r['loadAverageBefore'])}; `uptime` before: {r['uptimeBefore']}; at the end: "
        f"{r['uptime']})",
        "",
        *[f"- {k}: {v}" for k, v in r["setup"].items()],
        "",
        "| figure (from the POSTs' release; p50 / p95 / max) | "
        + " | ".join(f"{b['blockSeconds']}-second blocks" for b in bursts)
        + " |",
        "|---|" + "---:|" * len(bursts),
        *[row(label.format(goal=goal), cell) for label, cell in BURST_ROWS],
        row("nothing lost or doubled", reconciled),
        "",
        f"For comparison, a direct stake transfer (docs/protocol.md section 2: the player's own transaction, paying "
        f"its own gas) to the same treasury on the same chain, {len(direct['all'])} of them in the same run: "
        f"{direct['p50']:,} gas (p50), {direct['max']:,} at most. The relayed stake costs "
        f"{main['gasUsed']['p50'] / direct['p50']:.2f} times that: the token checks the signature (ecrecover), "
        "marks the authorization's nonce used (a new storage slot) and emits AuthorizationUsed besides the Transfer, "
        "and the call carries 324 bytes instead of 164.",
        "",
        *how_to_read(r, main),
        *confirmation_lines(bursts, r.get("relayProfile")),
        *profile_lines(r.get("relayProfile")),
        "",
        *relay_runs_lines(runs or []),
    ]
    return lines


def _run_ms_per_stake(b: dict) -> float | None:
    runs = [x for x in b["relayRuns"] if x["sent"]]
    sent = sum(x["sent"] for x in runs)
    return sum(x["seconds"] for x in runs) / sent * 1000 if sent else None


def how_to_read(r: dict, main: dict) -> list[str]:
    budget = 5 * 10**16  # config/settings/chain.py's default RELAY_MAX_WEI_PER_DAY
    claims = r["goals"]["claims"]
    per_stake = _run_ms_per_stake(main) or 0
    sent, answered = main["relaySentSeconds"], main["postAnsweredSeconds"]
    spans = ", ".join(f"{len(b['blocksUsed'])} blocks on {b['blockSeconds']}-second blocks" for b in r["bursts"])
    return [
        "How to read it: the relayer sends the claims one at a time in arrival order, each under the account "
        "row's lock with a nonce of its own (chain/relayer.py), and never waits for a receipt, so a burst goes "
        "into the blocks produced while it sends, and the stakes land in as many blocks as the sending spans: "
        f"{spans}. On 12-second blocks its first send came {sent['first']:.2f} s after the POSTs' release, "
        f"while the POSTs were still being answered ({claims} at once on the web process's threads and this "
        f"machine's two cores: {answered['p50']:.2f} s p50, {answered['max']:.2f} s the last), and its last "
        f"{sent['max']:.2f} s after: one run of the relayer sent them, "
        f"{per_stake:.0f} ms per stake (in one process with nothing else running, below: "
        f"{(r.get('relayProfile') or {}).get('wallMsPerClaim', 0):.0f} ms). Released in the middle of a 12-second "
        "interval, the first block took the stakes sent before it and the next one the rest; released just "
        "before a block, the first would take almost none and the burst would still end in the next. Gas per "
        "stake is the token's own work and does not depend on the pace. The default daily budget, "
        f"{_eth(budget)} (RELAY_MAX_WEI_PER_DAY), counts what is in flight at its most (gas limit 120,000 x "
        f"maxFeePerGas): this burst reserved {_eth(main['reservedInFlightWei'])} of it at once and spent "
        f"{_eth(main['costWei']['sum'])}; at this chain's gas price (about "
        f"{main['effectiveGasPriceWei']['p50'] / 1e9:.2f} gwei) the default pays for about "
        f"{budget // max(1, int(main['costWei']['p50'])):,} relayed stakes a day, ten times fewer at 10 gwei.",
    ]


TASK_NAMES = {
    "chain.watch_head": "the head watcher",
    "chain.index_payments": "the ledger indexer",
    "chain.verify_response": "single verifications",
    "chain.relay_send": "the relayer's sends",
    "chain.relay_watch": "the relayer's watcher",
    "chain.recheck_confirmed": "the reorg re-check",
}


def worker_text(worker: dict | None, lead: str = "in those {seconds:.0f} s") -> str:
    """What the worker's processes ran in a window, from its log (bench/worker_log.py)."""
    if not worker:
        return "not recorded"
    tasks = worker["tasks"]
    parts = [
        f"{TASK_NAMES[name]} ({name}) {t['runs']} runs, {t['sumSeconds']:.1f} s in all, {t['maxSeconds']:.1f} s at most"
        for name, t in sorted(tasks.items(), key=lambda kv: -kv[1]["sumSeconds"])
        if name in TASK_NAMES
    ]
    expired = worker["discarded"].get("chain.watch_head", 0)
    return (
        lead.format(seconds=worker["windowSeconds"])
        + " the worker's two processes ran "
        + "; ".join(parts)
        + f"; **{expired} of the head watcher's messages expired unrun** (the beat gives each two intervals)"
    )


def confirmation_lines(bursts: list[dict], p: dict | None) -> list[str]:
    """Why the claims were confirmed as late as they were after their stakes were mined."""
    lines = []
    for b in bursts:
        gap = (b["lastConfirmedSeconds"] or 0) - (b["lastInclusionSeconds"] or 0)
        lines.append(
            f"On {b['blockSeconds']}-second blocks the last claim was confirmed {gap:.1f} s after the last stake was "
            f"mined, where the chain makes it deep enough {b['blockSeconds']} s after (CHAIN_CONFIRMATIONS=2): "
            f"{worker_text(b.get('worker'))}."
        )
    if lines:
        lines.append(
            "The single verifications are the ones the ledger indexer queues for the claims of the payments it "
            "records for the first time or re-opens (chain/tasks.py, index_payments), and a claim's own when it "
            "is stored with its authorization already used (responses/authorizations.py); a claim whose "
            "authorization nobody has used yet queues none, its use is found by the head watcher's round. They "
            "share the worker's two processes with the head watcher, whose messages expire after two intervals; "
            "until one runs, the claims of a deep-enough block wait. The runs of 19:02 and before were measured "
            "while every stored claim queued one and the indexer queued every pending claim of its window at "
            "each run."
        )
    rounds = (p or {}).get("headRounds") or []
    deep = next((x for x in rounds if x["block"] == "deep-enough block"), None)
    if deep and deep["decided"]:
        lines.append(
            f"The head watcher's round itself, over {deep['claims']} claims whose stakes one block holds "
            f"(bench/relay_profile.py, in one process after the servers stopped): at the inclusion block "
            f"{rounds[0]['seconds']:.2f} s ({rounds[0]['rpcRequests']} RPC requests, {rounds[0]['statements']} "
            f"statements: each claim's transaction recorded), at the deep-enough block {deep['seconds']:.2f} s for "
            f"{deep['decided']} confirmed: {deep['rpcRequests']} RPC requests (the reads are batched) but "
            f"{deep['statements']} SQL statements, {deep['statements'] / deep['decided']:.1f} per claim "
            f"({deep['seconds'] / deep['decided'] * 1000:.0f} ms per claim): each claim is confirmed with writes of "
            "its own (its row, the challenge's sums, its ledger row, each in a savepoint), one after another."
        )
    return ["", *(" ".join(lines),)] if lines else []


def profile_lines(p: dict | None) -> list[str]:
    if not p:
        return []
    parts = "; ".join(f"{name} {ms:.1f} ms" for name, ms in sorted(p["partsMsPerClaim"].items(), key=lambda kv: -kv[1]))
    statements = "; ".join(
        f"{STATEMENTS.get(kind, kind)} ({kind}, {v['perClaim']:.2f} per stake) {v['msPerClaim']:.1f} ms"
        for kind, v in p["statements"].items()
    )
    return [
        "",
        f"Where the relayer's time goes, per stake: its sending run over {p['claims']} queued claims in one process "
        f"(bench/relay_profile.py, after the servers stopped; load average {' / '.join(map(str, p['loadAverage']))}) "
        f"took {p['wallMsPerClaim']:.1f} ms per stake, {p['cpuMsPerClaim']:.1f} ms of it this process's CPU: "
        f"{parts}. Its {p['statementsPerClaim']:.1f} SQL statements per stake: {statements}. Each stake is one "
        "database transaction of its own under the account row's lock (a commit each), so what the worker adds to "
        "a burst grows with the claims one by one; reading the payer's and the day's relay totals once per round "
        "instead of once per stake, and committing several sends at once, are what would shorten it (the lead's "
        "call: the lock per stake is what keeps the nonces in the claims' order).",
    ]


# --- Section 5b: signature to "Confirmed" on the page ---------------------------------------------

SIGNED_ROWS: tuple[tuple[str, str], ...] = (
    ("signature to Confirmed on the page", "signatureToConfirmedSeconds"),
    ("chain floor: signature to the 2nd block produced after it", "chainFloorSeconds"),
    ("of which signature to the POST's answer", "signatureToPostAnsweredSeconds"),
    (
        "of which POST answered to the relayer's run started (its message through Redis to a free worker process)",
        "postAnsweredToRunStartSeconds",
    ),  # fmt: skip
    (
        "of which the run's start to this stake sent (its batched reads, then the stakes before it)",
        "runStartToSentSeconds",
    ),  # fmt: skip
    ("signature to the relayer's send (sent_at)", "signatureToRelaySentSeconds"),
    ("the relayer's send to its block (first seen)", "relaySentToInclusionBlockSeconds"),
    ("deep-enough block to the server's confirmation (head watcher)", "deepBlockToServerSeconds"),
    ("server's confirmation to the page (its next look-up)", "serverToPageSeconds"),
    ("deep-enough block to Confirmed on the page", "deepBlockToConfirmedSeconds"),
)


def _tally(runs: list[dict] | None) -> str:
    """How many full runs on production's indexer interval met the goal (the runs table below)."""
    production = [r for r in runs or [] if str(r.get("indexSeconds")) == "15"]
    if len(production) < 2:
        return ""
    met = sum(1 for r in production if r.get("signedMeetsGoal"))
    return f"; met in {met} of the {len(production)} full runs below on production's indexer interval"


def live_signed_section(r: dict, la: Callable[[dict], str], runs: list[dict] | None = None) -> list[str]:
    signed = sorted([p for p in r["phases"] if p.get("signed")], key=lambda p: -p["blockSeconds"])
    if not signed:
        return []
    transfers = {p["blockSeconds"]: p for p in r["phases"] if not p.get("signed")}
    goal = r["goals"].get("signedAboveFloorP95SecondsAtMost", 1.5)
    main = next((p for p in signed if p["blockSeconds"] == 12), signed[0])
    met = "met" if r.get("signedMeetsGoal") else "**missed**"

    def row(name: str, cell: Callable[[dict], str]) -> str:
        return f"| {name} | " + " | ".join(cell(p) for p in signed) + " |"

    def mined(p: dict) -> str:
        return ", ".join(f"block {n}: {k}" for n, k in p["inclusionIndex"].items())

    def transfer(p: dict) -> str:
        t = transfers.get(p["blockSeconds"])
        if t is None:
            return "–"
        return _trio(t["postToConfirmedAboveFloorSeconds"]) + f" (floor {_trio(t['chainFloorSeconds'])})"

    def follow(p: dict) -> str:
        f = p["follow"]
        kinds = ", ".join(f"{k} {v:.2f}" for k, v in sorted(f.get("byKindPerSecondPerPendingPlayer", {}).items()))
        rate, size = f["requestsPerSecondPerPendingPlayer"], f["answerBytesPerSecondPerPendingPlayer"]
        return f"{rate:.2f} req/s ({kinds}), {size:,.0f} B/s"

    def bids(p: dict) -> str:
        t = p["totalBids"]
        return ("yes" if t["followed"] else "**no**: " + "; ".join(t["problems"])) + f" ({t['reloads']} reloads)"

    lines = [
        '## 5b. Live: a stake paid by signature, from the signature to "Confirmed"',
        "",
        f"Goal: on 12-second blocks with `CHAIN_CONFIRMATIONS=2`, players holding test USDC and no ETH stake by "
        "signature through the real page (docs/protocol.md section 2a): from the moment their wallet gives the "
        'signature to "Confirmed" in My submissions, within the chain\'s floor + '
        f"{goal:g} s at p95 over {main['claims']} stakes: {met} (p95 "
        f"{main['aboveFloorSeconds']['p95']:.2f} s above the floor{_tally(runs)}). The floor of a relayed stake is "
        "the time from the signature to the block that would make the payment deep enough had it been mined in the "
        "first block produced after the signature, i.e. the 2nd block produced after it: the relayer cannot beat "
        "it, and a stake the relayer gets into a later block pays a whole block more. Same stack, same run as "
        "section 5 (its direct transfers are the comparison row).",
        "",
        f"Command: `{r['command']}` · measured {r['measuredAt']} (load average {la(r)}); setup as section 5, "
        f"and: {r['setup'].get('signed', '')}",
        "",
        "| figure (p50 / p95 / max) | " + " | ".join(f"{p['blockSeconds']}-second blocks" for p in signed) + " |",
        "|---|" + "---:|" * len(signed),
        row(
            "stakes signed through the page / shown Confirmed on it",
            lambda p: f"{p['claims']} / {p['confirmedOnPage']}",
        ),
        row(
            "**signature to Confirmed above the floor, per stake**",
            lambda p: f"**{_trio(p['aboveFloorSeconds'])}**" + (f" ({met})" if p is main else ""),
        ),
        *[row(label, lambda p, key=key: _trio(p.get(key) or {})) for label, key in SIGNED_ROWS],
        row("mined in the n-th block produced after the signature (stakes)", mined),
        row("the relayer's transactions sent again (none expected)", lambda p: str(p["relayResent"])),
        row(
            "for comparison, paid by transfer in the same run (section 5): POST to Confirmed above its floor", transfer
        ),
        row("following: GETs per player with a pending stake, and answer bytes on the wire", follow),
        row("total bids followed the confirmed sum without a reload", bids),
        "",
    ]
    for p in signed:
        missed = p["missedFirstBlock"]
        if missed:
            lines += [
                f"On {p['blockSeconds']}-second blocks, {len(missed)} of {p['confirmedOnPage']} stakes missed the "
                "first block after their signature: "
                + "; ".join(f"block {m['inclusionIndex']}: {m['why']}" for m in missed)
                + ".",
                "",
            ]
        else:
            lines += [f"On {p['blockSeconds']}-second blocks, every stake was mined in the first block after its "
                      "signature.", ""]  # fmt: skip
        d = p["deepBlockToServerSeconds"]
        if p.get("worker") and d.get("p95") is not None:
            lines += [
                f"From the deep-enough block to the server's confirmation on {p['blockSeconds']}-second blocks: "
                f"{_trio(d)} (p50 / p95 / max); "
                + worker_text(p["worker"], f"over the phase's {{seconds:.0f}} s ({p['claims']} stakes),")
                + ".",
                "",
            ]
    if not r.get("signedMeetsGoal") and main.get("overGoal") is not None:
        over = main["overGoal"]
        late = [o for o in over if (o["inclusionIndex"] or 1) > 1]
        rest = [o for o in over if (o["inclusionIndex"] or 1) == 1]
        lines += [
            f"Missed: p95 {main['aboveFloorSeconds']['p95']:.2f} s above the floor against {goal:g} s. "
            f"{len(over)} of {main['claims']} stakes were more than {goal:g} s above it: {len(late)} because the "
            "relayer's send came after the first block following the signature (listed above), "
            f"{len(rest)} mined in that first block but confirmed late after their deep-enough block: "
            + "; ".join(
                f"{o['aboveFloor']:.2f} s (deep-enough block to the server {o['deepBlockToServer']:.2f} s, server to "
                f"the page {o['serverToPage']:.2f} s)"
                for o in rest
            )
            + ". What the worker ran meanwhile is above; the runs below show how it moves with the machine's load.",
            "",
        ]
    send = main["signatureToRelaySentSeconds"]["p50"] or 0
    chance = send / main["blockSeconds"]
    lines += [
        "How to read it: after the signature the page posts the claim (the POST checks the signature, the token's "
        "state and the payer's balance in one batch, chain/authorization_checks.py), the claim's commit queues the "
        "relayer's message on the `relay` queue, and a worker process sends the stake in the relayer's next run "
        "(chain/relayer.py: its batched reads of the queued claims, then one stake at a time under the account "
        "row's lock). That costs nothing while the send comes before the next block; a stake signed closer to "
        "the next block than that misses it and waits a whole block. For a signature at a random moment of the "
        f"interval the chance is about (signature to send) / (block time): here {send:.2f} s / "
        f"{main['blockSeconds']} s = {chance:.1%} per stake, {chance * main['claims']:.1f} of {main['claims']} "
        "expected, and since each miss costs a whole block, the p95 over 20 holds only while at most one misses. "
        "The rest of the budget is the transfer's path from the "
        "deep-enough block (section 5): the head watcher's batched round confirms it, the page follows it by its "
        "commitment (`GET /api/responses/authorization/{commitment}`, counted under `status`) and, once the claim "
        "names its transaction, watches the head through the wallet; a block holds several of a player's signed "
        "stakes (nobody waits for a receipt), so the round confirms more at once than for transfers, one after "
        "another (section 7 measures the round). "
        "The relayer's runs are read from the stack's worker log (Celery's received and succeeded lines).",
        "",
        *live_runs_lines(runs or []),
    ]
    return lines


# --- Every full run (bench/results/*-runs.json) ---------------------------------------------------

# The first full run (2026-11-27 18:29 UTC) ran the e2e suite's ledger indexer, every second; read
# from its worker log: the indexer's runs over the phase paid by signature on 12-second blocks, and
# what they did to the head watcher and the claims.
INDEXER_EVERY_SECOND = (
    "The first run's stack ran the ledger indexer every second (CHAIN_INDEX_INTERVAL_SECONDS=1, the e2e "
    "suite's setting; `BENCH_LIVE_INDEX_SECONDS=1` runs it so again). Each run reads the treasury's transfers of "
    "the last CHAIN_REORG_DEPTH_BLOCKS (64) blocks again, at 40 to 160 ms per transfer on this machine, so once "
    "the run's stakes filled that window a run took 1.7 to 6 s, longer than its interval: one of the worker's two "
    "processes was always indexing, each run queued a single verification for every pending claim in its window "
    "(415 single verifications in the busiest minute), and the head watcher's messages expired by the hundred "
    "(65 in the 12-second phase "
    "paid by signature, 123 and 109 in the 1-second phases). The claims were then confirmed one by one by those "
    "single verifications, 10 to 30 s after their deep-enough block (and 57 s in the 1-second phase paid by "
    "transfer that followed). The stack now runs production's default, 15 s."
)


def _load(values: list) -> str:
    return " / ".join(f"{x:g}" for x in values)


def _t(d: dict | None) -> str:
    return "–" if not d else " / ".join("–" if d.get(q) is None else f"{d[q]:.2f}" for q in ("p50", "p95", "max"))


def live_runs_lines(runs: list[dict]) -> list[str]:
    if not runs:
        return []
    tail = ["", INDEXER_EVERY_SECOND] if any(str(r["indexSeconds"]) == "1" for r in runs) else []
    lines = [
        "Every full run of `bench.run live` (the machine is shared: the load average before and after each says "
        "what else ran; the ledger indexer's interval is the stack's CHAIN_INDEX_INTERVAL_SECONDS):",
        "",
        "| measured (UTC) | load before → after | indexer | 12 s, transfer: block to Confirmed (p50 / p95 / max) "
        "| 12 s, signed: above the floor (p50 / p95 / max) | signed: n-th block after the signature | signed: "
        "deep-enough block to the server (p50 / p95 / max) | head watcher's messages expired unrun (per phase) |",
        "|---|---|---:|---:|---:|---|---:|---|",
    ]
    for r in runs:
        transfer = next((p for p in r["phases"] if p["blockSeconds"] == 12 and not p["signed"]), {})
        signed = next((p for p in r["phases"] if p["blockSeconds"] == 12 and p["signed"]), {})
        expired = ", ".join(
            f"{p['blockSeconds']} s {'signed' if p['signed'] else 'transfer'}: {p['headWatcherExpired']}"
            for p in r["phases"]
        )
        index = ", ".join(f"block {n}: {k}" for n, k in signed.get("inclusionIndex", {}).items())
        lines.append(
            f"| {r['measuredAt']} | {_load(r['loadAverageBefore'])} → {_load(r['loadAverage'])} | "
            f"{r['indexSeconds']} s | {_t(transfer.get('blockToConfirmed'))} s | {_t(signed.get('aboveFloor'))} s "
            f"| {index} | {_t(signed.get('deepBlockToServer'))} s | {expired} |"
        )
    return lines + tail


def relay_runs_lines(runs: list[dict]) -> list[str]:
    if not runs:
        return []
    lines = [
        "Every full run of `bench.run relay_burst` (the machine is shared: the load average before and after each):",
        "",
        "| measured (UTC) | load before → after | blocks | blocks used (1 = the first after the POSTs) | last "
        "mined / last confirmed, from the POSTs | between two sends (p50) | nothing lost or doubled | head "
        "watcher's messages expired unrun |",
        "|---|---|---:|---|---|---:|---|---:|",
    ]
    for r in runs:
        for b in r["bursts"]:
            lines.append(
                f"| {r['measuredAt']} | {_load(r['loadAverageBefore'])} → {_load(r['loadAverage'])} | "
                f"{b['blockSeconds']} s | {_blocks(b['blocksUsed'])} | {b['lastInclusionSeconds']:.1f} s / "
                f"{b['lastConfirmedSeconds']:.1f} s | {b['sendSpacingMsP50']:.0f} ms | "
                f"{'yes' if b['nothingLostOrDoubled'] else '**no**'} | {b['headWatcherExpired']} |"
            )
    return lines
