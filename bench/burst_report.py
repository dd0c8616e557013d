"""docs/performance.md's section on the burst (bench/burst.py): the same burst with no delay and
with the provider's delay side by side, their ratios, each round, what was reconciled, and the
server before the change when bench/results/burst-before.json holds its run."""

from __future__ import annotations

# Processes against threads at the same 48 threads, measured by this benchmark with BENCH_BURST_ROUNDS=1
# and WEB_CONCURRENCY / WEB_THREADS set, the two shapes alternating twice (2026-11-25 14:50-14:54 UTC,
# load average 3.7-8.6 from others' work): 200 ms per RPC, claims/s and web CPU per claim.
SHAPES = {
    "2 processes x 24 threads": {"claimsPerSecond": (125, 115), "cpuMsPerClaim": (8.7, 10.1), "p99": (0.59, 0.73)},
    "3 processes x 16 threads": {"claimsPerSecond": (98, 91), "cpuMsPerClaim": (12.1, 11.4), "p99": (1.17, 1.29)},
}

# Earlier full runs of the same command on the Procfile's present defaults (2 x 24), the same day, on
# this branch before main's later claim-path changes (the POST's extra checks of the close, grace and
# resolution rules) were merged into it: UTC time, then at 200 ms per RPC the median claims/s and p99,
# and the load average when each ended. The figure sits at this shared machine's CPU limit, so it
# moves with what else runs and with what a claim costs.
EARLIER_RUNS = (
    ("15:17", 100, 1.10, "4.5 / 2.2 / 3.0"),
    ("15:19", 101, 1.04, "6.0 / 3.1 / 3.2; its last round 79 claims/s as the load rose"),
    ("15:35", 99, 1.17, "3.8 / 1.8 / 2.3; web CPU 11.0 ms per claim"),
)

# Full runs of the code this report measures, while other work (tests, a mutation run) shared the
# two cores: UTC time, claims/s and p99 at 200 ms per RPC, and the load average when each ended.
LOADED_RUNS = (
    ("15:42", 91, 1.50, "5.1 / 3.0 / 2.6"),
    ("15:48", 92, 1.36, "6.9 / 4.0 / 3.0"),
)

SIDE_ROWS = (
    # label, key, format; None: no ratio
    ("claims per second (answered / from the first release to the last answer)", "claimsPerSecond", "{:.0f}"),
    ("claim latency p50 (from its scheduled release)", "p50Seconds", "{:.2f} s"),
    ("claim latency p99", "p99Seconds", "{:.2f} s"),
    ("claim latency max", "maxSeconds", "{:.2f} s"),
    ("public reads alone, p50", "readsAloneP50Seconds", "{:.3f} s"),
    ("public reads alone, p99", "readsAloneP99Seconds", "{:.3f} s"),
    ("public reads during the burst, p50", "readsDuringP50Seconds", "{:.3f} s"),
    ("public reads during the burst, p99", "readsDuringP99Seconds", "{:.3f} s"),
    ("public reads during the burst, answered per second", "readsDuringPerSecond", "{:.0f}"),
    ("RPC requests per claim (counted by the proxy)", "rpcRequestsPerClaim", "{:.2f}"),
    ("web process CPU per claim (its reads included)", "webCpuMsPerClaim", "{:.1f} ms"),
    ("database connections at once, at most (all rounds)", "peakDatabaseConnections", "{:.0f}"),
)


def _cell(side: dict, key: str, fmt: str) -> str:
    value = side.get(key)
    return "–" if value is None else fmt.format(value)


def _ratio(far: dict, near: dict, key: str) -> str:
    a, b = far.get(key), near.get(key)
    return f"{a / b:.2f}" if a is not None and b else "–"


def side_by_side(r: dict) -> list[str]:
    near, far = r["sides"][0], r["sides"][-1]
    lines = [
        f"| figure (median of the rounds) | {near['delayMs']} ms per RPC | {far['delayMs']} ms per RPC | ratio |",
        "|---|---:|---:|---:|",
    ]
    for label, key, fmt in SIDE_ROWS:
        lines.append(f"| {label} | {_cell(near, key, fmt)} | {_cell(far, key, fmt)} | {_ratio(far, near, key)} |")
    lines.append(
        f"| claims not answered 201, reads not answered 200 (all rounds) | {near['claimsNot201']}, "
        f"{near['readsNot200']} | {far['claimsNot201']}, {far['readsNot200']} | |"
    )
    return lines


def rounds(r: dict) -> list[str]:
    lines = [
        "| burst | delay | claims/s | p50 | p99 | max | answers | reads during p50 / p99 | web CPU | machine busy "
        "| load average before → after |",
        "|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|",
    ]
    for n, b in enumerate(r["bursts"], 1):
        c, d = b["claims"], b["readsDuring"]
        lines.append(
            f"| {n} | {b['delayMs']} ms | {c['perSecond']:.0f} | {c['p50']:.2f} s | {c['p99']:.2f} s | "
            f"{c['max']:.2f} s | {', '.join(f'{s}: {k}' for s, k in c['statuses'].items())} | "
            f"{d['p50']:.3f} / {d['p99']:.3f} s | {b['webCpuMsPerClaim']:.1f} ms | {b['machineBusy']:.0%} | "
            f"{' / '.join(str(x) for x in b['loadAverageBefore'])} → "
            f"{' / '.join(str(x) for x in b['loadAverageAfter'])} |"
        )
    return lines


def reconciled(c: dict) -> str:
    return (
        f"Nothing lost ({'yes' if c['nothingLost'] else '**no**'}): {c['claims']} claims posted in all (the bursts "
        f"and the warm-up), {c['answeredNot201']} answered other than 201; {c['rows']} rows stored, "
        f"{c['missingRows']} missing, {c['rowsNotOnce']} stored more than once, {c['unexpectedRows']} unexpected; "
        f"{c['verificationMessagesQueued']} verification messages queued for the worker; the request log's claim "
        f"lines by status: {c['requestLogClaims']}."
    )


def shapes() -> list[str]:
    return [
        "Why 2 processes of 24 threads (the Procfile's defaults) and not 3 of 16, the same 48 threads: on two "
        "cores a third process only adds contention. The same burst at 200 ms per RPC, one round of each shape, "
        "alternating twice: "
        + "; ".join(
            f"{name}: {' and '.join(str(x) for x in v['claimsPerSecond'])} claims/s, p99 "
            f"{' and '.join(f'{x:.2f}' for x in v['p99'])} s, web CPU "
            f"{' and '.join(str(x) for x in v['cpuMsPerClaim'])} ms per claim"
            for name, v in SHAPES.items()
        )
        + " (2026-11-25 14:50-14:54 UTC, load average 3.7-8.6; `WEB_CONCURRENCY=... WEB_THREADS=... "
        "BENCH_BURST_ROUNDS=1 .venv/bin/python -m bench.run burst`). Fewer threads would hold fewer database "
        "connections, but 2 x 16 (32) took 81 and 92 claims/s at 200 ms against 95 and 98 for 2 x 24, the "
        "machine only 80-84% busy: bound by its threads (15:36-15:39 UTC, load average 2.4-4.0).",
    ]


def limits(r: dict) -> list[str]:
    far = r["sides"][-1]
    busy = sorted(b["machineBusy"] for b in r["bursts"])
    rate = r["setup"]["burst"].split("released open-loop at ")[1].split(" per second")[0]
    return [
        f"How to read it: the claims are released at {rate} a second, so a server that keeps up answers a burst "
        "in the time of its release plus the last claim's latency, a little under the release rate; the "
        "0-ms side shows what the server does when the provider costs nothing, that ceiling or its CPU's, and the "
        "ratio what the provider's distance costs. At 200 ms each claim holds a web thread for the round trip, "
        "so the threads (processes x threads, the Procfile's) bound the rate at about threads / 0.2 s; below "
        f"that bound the machine's CPU is what limits it: the web process spent {far['webCpuMsPerClaim']:.1f} ms "
        f"of CPU per claim, its reads included, and the machine was {busy[0]:.0%} to {busy[-1]:.0%} busy while "
        "the bursts ran (this benchmark's client, proxy, anvil, PostgreSQL and Redis, and whatever else ran on "
        "the shared cores). In production the database, Redis, the provider and the players are elsewhere and "
        "a web dyno's cores are its own: at that CPU per claim, two cores of its own would take about "
        f"{2000 / far['webCpuMsPerClaim']:.0f} claims a second (an estimate from the figure, not a measurement), "
        "within the threads' bound.",
    ]


def before_lines(before: dict, after: dict) -> list[str]:
    b_far, a_far = before["sides"][-1], after["sides"][-1]
    b_near, a_near = before["sides"][0], after["sides"][0]

    return [
        "",
        f"Before, the same benchmark on the web process as it was (`{before['webCommand']}`), measured "
        f"{before['measuredAt']} (load average {' / '.join(str(x) for x in before['loadAverage'])}; "
        f"`{before['command']}`):",
        "",
        "| | before: 0 ms | before: 200 ms | now: 0 ms | now: 200 ms |",
        "|---|---:|---:|---:|---:|",
        f"| claims per second | {b_near['claimsPerSecond']:.0f} | {b_far['claimsPerSecond']:.0f} | "
        f"{a_near['claimsPerSecond']:.0f} | {a_far['claimsPerSecond']:.0f} |",
        f"| claim latency p50 / p99 | {b_near['p50Seconds']:.2f} / {b_near['p99Seconds']:.2f} s | "
        f"{b_far['p50Seconds']:.2f} / {b_far['p99Seconds']:.2f} s | {a_near['p50Seconds']:.2f} / "
        f"{a_near['p99Seconds']:.2f} s | {a_far['p50Seconds']:.2f} / {a_far['p99Seconds']:.2f} s |",
        f"| public reads during the burst p50 / p99 | {b_near['readsDuringP50Seconds']:.3f} / "
        f"{b_near['readsDuringP99Seconds']:.3f} s | {b_far['readsDuringP50Seconds']:.3f} / "
        f"{b_far['readsDuringP99Seconds']:.3f} s | {a_near['readsDuringP50Seconds']:.3f} / "
        f"{a_near['readsDuringP99Seconds']:.3f} s | {a_far['readsDuringP50Seconds']:.3f} / "
        f"{a_far['readsDuringP99Seconds']:.3f} s |",
        f"| claims per second, 200 ms / 0 ms | {b_far['claimsPerSecond'] / b_near['claimsPerSecond']:.2f} | | "
        f"{a_far['claimsPerSecond'] / a_near['claimsPerSecond']:.2f} | |",
        f"| database connections at once, at most | {b_near['peakDatabaseConnections']} | "
        f"{b_far['peakDatabaseConnections']} | {a_near['peakDatabaseConnections']} | "
        f"{a_far['peakDatabaseConnections']} |",
        "",
        "What changed: gunicorn's sync workers served one request per process, so three processes took at best "
        "3 / 0.2 s = 15 claims a second with the provider 200 ms away, and every public read queued behind the "
        "claims' chain reads. The threaded workers let the waits overlap and answer the reads between them "
        '(docs/architecture.md, "The web process"). Each thread keeps its PostgreSQL connection across requests '
        "(`DATABASE_CONN_MAX_AGE`), so a claim no longer opens one (a quarter of its CPU, measured in one "
        "process), and the database sees up to processes x threads connections at once instead of one per "
        "process (README, Deploy).",
    ]


def burst_section(r: dict, before: dict | None, la) -> list[str]:
    goals = r["goals"]
    far = r["sides"][-1]
    met = "met" if r["meetsGoal"] else "**missed**"
    lines = [
        "## 6. A burst of claims at opening, with the chain provider far away",
        "",
        f"Goal: with {goals['delayMs']} ms added to every RPC request (a hosted provider's round trip), at least "
        f"{goals['claimsPerSecondAtLeast']:g} claims per second at p99 <= {goals['p99SecondsAtMost']:g} s through "
        "the Procfile's web process on this 2-core machine, every claim stored exactly once and none answered "
        f"5xx, and the public reads kept while it runs: **{far['claimsPerSecond']:.0f} claims/s at p99 "
        f"{far['p99Seconds']:.2f} s** ({met}). Each claim POST reads its transaction once on chain while it waits "
        "(chain/checks.py, claim_check_at_post), so each holds a web thread for one provider round trip.",
        "",
        f"Command: `{r['command']}` · measured {r['measuredAt']} (load average {la(r)}; `uptime` at the end: "
        f"{r['uptime']})",
        "",
        *[f"- {k}: {v}" for k, v in r["setup"].items()],
        "",
        *side_by_side(r),
        "",
        "Every burst, in the order run (the machine is shared: its load average and how busy it was while each "
        "burst ran say what else was running):",
        "",
        *rounds(r),
        "",
        reconciled(r["reconciled"]),
        "",
        *limits(r),
        "",
        *shapes(),
    ]

    def verdict(rate: float, p99: float) -> str:
        return "met" if rate >= goals["claimsPerSecondAtLeast"] and p99 <= goals["p99SecondsAtMost"] else "missed"

    lines += [
        "",
        "Earlier full runs of the same command on the same web process, the same day, before main's later "
        "changes to the claim POST were merged (UTC): "
        + "; ".join(
            f"{at}: {rate} claims/s at p99 {p99:.2f} s at 200 ms ({verdict(rate, p99)}; load average {load})"
            for at, rate, p99, load in EARLIER_RUNS
        )
        + ". The merged code (15:42 before the RPC session read the environment once), while other work shared the"
        " two cores: "
        + "; ".join(
            f"{at}: {rate} claims/s at p99 {p99:.2f} s at 200 ms ({verdict(rate, p99)}; load average {load})"
            for at, rate, p99, load in LOADED_RUNS
        )
        + ". The goal is at the edge of what this shared machine's two cores give the whole benchmark: it is"
        " met when the benchmark has them to itself, and missed when other suites run beside it.",
    ]
    if before is not None:
        lines += before_lines(before, r)
    return lines
