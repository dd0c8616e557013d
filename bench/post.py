"""Benchmark: the POST of a signed stake (docs/performance.md section 2), its CPU in the web process
and a burst of them with the chain's provider far away.

The web process exactly as the Procfile runs it (devtools/procfile.py: its own command line through
bash, bound to 127.0.0.1) with the production settings (bench.settings), PostgreSQL database
geopoem_bench, Redis DB 8 as cache and broker, and CHAIN_RPC_URLS pointing at a delaying JSON-RPC
proxy (devtools/rpc_delay.py) in front of anvil with the test USDC behind its proxy and the pot. No
Celery worker: it runs on its own dyno, so each stored stake's pot call stays queued and the relayer's
message waits in Redis (counted: one while one is pending, chain/relayer/outbox.py).

Each POST is a real signed stake of its own payer (bench/site.py, sign: a key of its own, test USDC,
no ETH) on a challenge opened in the pot by the worker's own step, so the POST does all its work: the
signature recovered against the stake nonce, the window, one simulation of the relayer's call on the
node, the relayer's admission, the rows. Each player comes through the router as its own address.

A burst is COUNT POSTs released open-loop at RATE per second (bench/client.py) while a reader asks the
public answers at READ_RATE per second, from READ_LEAD seconds before the burst to its last answer.
Each round runs a burst of the floor (GET /bench/floor, a constant JSON view: what any request costs
this web process), then the POSTs with 0 ms and with 200 ms added to every RPC request, in alternating
order. CPU per request is the web process group's CPU over a burst (/proc) divided by its requests.
Afterwards: every POST answered 201 exactly once, one signed stake and one pot call per POST, every
call queued with a message to the relayer waiting to send them, one request-log line per answer."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from devtools import procfile
from devtools.rpc_delay import delaying_proxy

from . import client, node, tables
from .common import (
    DATABASE,
    PG_BASE,
    anvil,
    command,
    cpu_seconds,
    django_main,
    fresh_database,
    in_django,
    load_average,
    log,
    log_dir,
    median,
    queued_messages,
    write_result,
)

COUNT = int(os.environ.get("BENCH_POST_COUNT", "300"))
RATE = float(os.environ.get("BENCH_POST_RATE", "100"))
ROUNDS = int(os.environ.get("BENCH_POST_ROUNDS", "2"))
READ_RATE = 40.0
READ_LEAD = 3.0
DELAYS_MS = (0, 200)
WARMUP = 48  # each web worker's first stakes import the chain code (web3) and read the token's domain
PROFILED = 100  # POSTs of the in-process breakdown (profile, below)
GOAL_CPU_MS = 5.0
# The goal's 5 ms is set beside "a bare view costs about 1": measured beside the floor of the same run,
# a POST may cost five times what a constant view costs this web process on this machine.
GOAL_FLOOR_RATIO = 5.0
GOAL_PER_SECOND = 100.0
GOAL_P99_SECONDS = 1.5
PAYERS_FROM = 0  # bench/node.py payers 0.. (the relay benchmark uses others)


def run() -> dict:
    load_before = load_average()
    web_line = procfile.procfile_command("web")
    workdir = log_dir("post")
    total = WARMUP + 2 * ROUNDS * COUNT + PROFILED
    with anvil() as (url, anvil_process):
        info = node.setup_chain(url)
        with delaying_proxy(url, delay_ms=0, log=workdir / "proxy.log") as proxy:
            env = fresh_database(**node.chain_env(info, proxy.url, CHAIN_CONFIRMATIONS="2"), TRUSTED_PROXY_HOPS="1",
                                 LOG_LEVEL="INFO")  # fmt: skip
            challenge = in_django("bench.site", env, "open", url, "3600")["challenge"]
            payers = node.payers(total, start=PAYERS_FROM)
            log(f"{total} payers: minting their test USDC, signing their stakes")
            node.fund(url, info, [p.address for p in payers], 10 * 10**6)
            signed_file = workdir / "signed.json"
            in_django("bench.site", env, "sign", str(challenge), str(PAYERS_FROM), str(total), str(signed_file))
            signed = json.loads(signed_file.read_text())
            posts = [client.Request("POST", "/api/responses", s["commitment"], _address(n), s["body"])
                     for n, s in enumerate(signed)]  # fmt: skip
            warm, rest = posts[:WARMUP], posts[WARMUP : total - PROFILED]
            queued_before = queued_messages("relay")
            web_log = workdir / "web.log"
            with procfile.web(env, log=web_log) as web:
                site = client.Site(web.base, reads=["/api/challenges/active", "/api/challenges/resolved"])
                answers = client.few_at_a_time(site, warm, concurrency=12)
                log(f"warm-up: {client.figures(answers)['statuses']}")
                bursts = []
                for round_ in range(ROUNDS):
                    floor = [client.Request("GET", "/bench/floor", f"floor {round_} {n}", _address(n))
                             for n in range(COUNT)]  # fmt: skip
                    bursts.append(one_burst(site, proxy, floor, kind="floor", delay_ms=0, web=web.group, round_=round_))
                    order = DELAYS_MS if round_ % 2 == 0 else DELAYS_MS[::-1]
                    for i, delay in enumerate(order):
                        chunk = rest[(2 * round_ + i) * COUNT : (2 * round_ + i + 1) * COUNT]
                        bursts.append(one_burst(site, proxy, chunk, kind="post", delay_ms=delay, web=web.group,
                                                round_=round_))  # fmt: skip
                answers += [a for b in bursts if b["kind"] == "post" for a in b.pop("answers")]
            checked = reconcile(challenge, answers, web_log, queued=queued_messages("relay") - queued_before)
            log(f"reconciled: {checked}")
            proxy.set_delay(0)
            breakdown = in_django("bench.post", env, "profile", str(signed_file), str(total - PROFILED))
    cpu_per_request(bursts)
    for b in bursts:
        b.pop("answers", None)
    sides = {f"{kind}-{delay}": side([b for b in bursts if b["kind"] == kind and b["delayMs"] == delay])
             for kind, delay in (("floor", 0), ("post", 0), ("post", 200))}  # fmt: skip
    far = sides["post-200"]
    return write_result(
        "post",
        {
            "command": command(
                "post", "BENCH_POST_COUNT", "BENCH_POST_RATE", "BENCH_POST_ROUNDS", "WEB_CONCURRENCY", "WEB_THREADS"
            ),  # fmt: skip
            "webCommand": web_line,
            "setup": {
                "count": COUNT,
                "rate": RATE,
                "rounds": ROUNDS,
                "readRate": READ_RATE,
                "warmup": WARMUP,
                "delaysMs": DELAYS_MS,
                "webConcurrency": os.environ.get("WEB_CONCURRENCY", "the Procfile's"),
                "webThreads": os.environ.get("WEB_THREADS", "the Procfile's"),
            },  # fmt: skip
            "goals": {"cpuMsPerPost": GOAL_CPU_MS, "perSecond": GOAL_PER_SECOND, "p99Seconds": GOAL_P99_SECONDS},
            "sides": sides,
            "bursts": bursts,
            "reconciled": checked,
            "inProcess": breakdown,
            "meetsGoal": {
                "cpu": max(sides["post-0"]["cpuMsPerRequest"], far["cpuMsPerRequest"]) <= GOAL_CPU_MS,
                "cpuFloorRatio": max(sides["post-0"]["cpuMsPerRequest"], far["cpuMsPerRequest"])
                / sides["floor-0"]["cpuMsPerRequest"]
                <= GOAL_FLOOR_RATIO,
                "burst": far["perSecond"] >= GOAL_PER_SECOND * 0.97
                and far["p99Seconds"] <= GOAL_P99_SECONDS
                and far["not2xx"] == 0
                and checked["nothingLost"],
            },  # fmt: skip
        },
        load_before=load_before,
    )


def _address(n: int) -> str:
    return f"10.{n // 62500 + 1}.{n // 250 % 250}.{n % 250 + 1}"


def one_burst(site: client.Site, proxy, requests: list[client.Request], *, kind: str, delay_ms: int, web: int,
              round_: int) -> dict:  # fmt: skip
    proxy.set_delay(delay_ms)
    rpc_before = proxy.stats()["requests"]
    cpu_before = cpu_seconds(group=web)
    load = load_average()
    measured = client.burst(site, requests, rate=RATE, read_rate=READ_RATE, lead_seconds=READ_LEAD)
    cpu = cpu_seconds(group=web) - cpu_before
    answers = measured.answers
    end = max(a.done for a in answers)
    during = [a for a in measured.reads if measured.burst_start <= a.scheduled <= end]
    result = {
        "kind": kind,
        "round": round_,
        "delayMs": delay_ms,
        "requests": client.figures(answers),
        "readsDuring": client.figures(during, start=measured.burst_start),
        "rpcRequests": proxy.stats()["requests"] - rpc_before,
        "webCpuSeconds": round(cpu, 3),
        "reads": len(measured.reads),
        "loadAverageBefore": load,
        "loadAverageAfter": load_average(),
        "answers": answers,
    }
    r = result["requests"]
    log(f"{kind} at {delay_ms} ms per RPC: {r['perSecond']:.0f}/s, p50 {r['p50']:.3f} s, p99 {r['p99']:.3f} s, "
        f"{r['statuses']}; web CPU {cpu:.2f} s; load {result['loadAverageAfter']}")  # fmt: skip
    time.sleep(2)  # the last answers' connections closed, the server idle again
    return result


def cpu_per_request(bursts: list[dict]) -> None:
    """Each burst's web CPU per request, in ms. The public reads that run beside every burst are
    cached answers, as cheap as the floor: the floor's burst divides its CPU by its requests and reads
    together; a POST burst first takes out its reads at the CPU per request of its round's floor."""
    floors = {b["round"]: b for b in bursts if b["kind"] == "floor"}
    for b in bursts:
        floor = floors[b["round"]]
        per_read = floor["webCpuSeconds"] / (floor["requests"]["count"] + floor["reads"])
        if b["kind"] == "floor":
            b["cpuMsPerRequest"] = per_read * 1000
        else:
            b["cpuMsPerRequest"] = (b["webCpuSeconds"] - b["reads"] * per_read) / b["requests"]["count"] * 1000


def side(bursts: list[dict]) -> dict:
    """One kind and delay: the median over its rounds of each figure."""

    def m(get) -> float:
        return median([get(b) for b in bursts])

    return {
        "rounds": len(bursts),
        "perSecond": m(lambda b: b["requests"]["perSecond"]),
        "p50Seconds": m(lambda b: b["requests"]["p50"]),
        "p99Seconds": m(lambda b: b["requests"]["p99"]),
        "maxSeconds": m(lambda b: b["requests"]["max"]),
        "readsDuringP99Seconds": m(lambda b: b["readsDuring"]["p99"] or 0.0),
        "not2xx": sum(n for b in bursts for s, n in b["requests"]["statuses"].items() if not s.startswith("2")),
        "readsNot200": sum(n for b in bursts for s, n in b["readsDuring"]["statuses"].items() if s != "200"),
        "rpcRequestsPerRequest": m(lambda b: b["rpcRequests"] / b["requests"]["count"]),
        "cpuMsPerRequest": m(lambda b: b["cpuMsPerRequest"]),
    }


def reconcile(challenge_id: int, answers: list[client.Answer], web_log: Path, *, queued: int) -> dict:
    """Nothing lost or doubled: each POST answered 201 once, one signed stake and one pot call per
    commitment, every call still queued (no worker runs) with at least one relayer message waiting,
    which sends every call queued, and at most one per POST; one request-log line per POST."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/{DATABASE}") as conn:
        rows = dict(conn.execute(
            "SELECT s.commitment, count(c.id) FROM responses_signedstake s LEFT JOIN chain_potcall c "
            "ON c.signed_stake_id = s.id WHERE s.challenge_id = %s GROUP BY s.commitment", [challenge_id],
        ).fetchall())  # fmt: skip
        calls_queued = conn.execute(
            "SELECT count(*) FROM chain_potcall c JOIN responses_signedstake s ON c.signed_stake_id = s.id "
            "WHERE s.challenge_id = %s AND c.status = 'queued'", [challenge_id],
        ).fetchone()[0]  # fmt: skip
        stakes = conn.execute("SELECT count(*) FROM responses_signedstake WHERE challenge_id = %s",
                              [challenge_id]).fetchone()[0]  # fmt: skip
    statuses = {a.what: a.status for a in answers}
    logged: dict[str, int] = {}
    for status in re.findall(r"POST /api/responses (\d{3}) ", web_log.read_text(errors="replace")):
        logged[status] = logged.get(status, 0) + 1
    problems = {
        "answeredNot201": sum(1 for s in statuses.values() if s != 201),
        "postedTwice": len(answers) - len(statuses),
        "withoutRow": len(set(statuses) - set(rows)),
        "rowsNotPosted": len(set(rows) - set(statuses)),
        "callsNotOne": sum(1 for n in rows.values() if n != 1),
    }
    return {
        "posts": len(answers),
        "signedStakes": stakes,
        "relayerMessages": queued,
        "callsQueued": calls_queued,
        "requestLog": logged,
        **problems,
        "nothingLost": not any(problems.values()) and stakes == calls_queued == len(answers)
        and 1 <= queued <= len(answers) and logged == {"201": len(answers)},
    }  # fmt: skip


# Where a POST's time goes, by the site's functions (cumulative, nested: a part includes the parts it calls).
PARTS = {
    "the client's throttle (DRF's, counted in Redis)": "rest_framework/views.py:check_throttles",
    "the body parsed and validated (DRF serializer)": "rest_framework/serializers.py:is_valid",
    "signed_stake_submit (responses/services.py)": "responses/services.py:signed_stake_submit",
    "  the challenge and the commitment read (responses/stake_target.py)": "responses/stake_target.py:stake_target",
    "  the chain's check (chain/pot/port.py, check_signed_stake)": "chain/pot/port.py:check_signed_stake",
    "    the signature recovered (chain/token/authorization.py, signed_by)": "chain/token/authorization.py:signed_by",
    "    the simulation's JSON-RPC round trip (chain/node/calls.py, rpc_batch)": "chain/node/calls.py:rpc_batch",
    "  the relayer's admission (chain/relayer/admission.py)": "chain/relayer/admission.py:relay_admit",
    "  the signed stake and its pot call inserted (Django's Model.save)": "django/db/models/base.py:save_base",
    "  the relayer's message, if none is pending (chain/relayer/outbox.py)": "chain/relayer/outbox.py:_wake_sender",
    "the answer's body (responses/selectors.py, stake_just_signed)": "responses/selectors.py:stake_just_signed",
    "the answer rendered as JSON (DRF's renderer)": "rest_framework/response.py:rendered_content",
    "every SQL statement (psycopg's execute)": "psycopg/cursor.py:execute",
}


def _statement(sql: str) -> str:
    """A statement's kind and table: "SELECT responses_stake", "INSERT chain_potcall", "BEGIN". The
    table is the first one named outside any parentheses (a subquery in the select list names another
    table first; after a derived table, the table joined to it)."""
    words = sql.replace('"', "").split()
    depth, outer = 0, []
    for char in sql:
        depth += (char == "(") - (char == ")")
        outer.append(char if depth == 0 else " ")
    table = re.search(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+\"?(\w+)", "".join(outer), re.IGNORECASE)
    return words[0].upper() + (f" {table.group(1)}" if table else "")


def profile(signed_file: str, first: str) -> dict:
    """Under Django: PROFILED POSTs through the WSGI application in this process (every middleware, no
    server, the node at 0 ms), after one to warm it: the process's CPU per POST, its SQL statements by
    kind and table, and the share of the POST's CPU in each of PARTS (cProfile on CPU time, a second
    pass over other stakes)."""
    import cProfile
    import pstats
    from collections import Counter

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    bodies = [s["body"] for s in json.loads(Path(signed_file).read_text())[int(first) :]]
    api = Client()

    def post(body: dict, n: int) -> None:
        answer = api.post("/api/responses", body, content_type="application/json", REMOTE_ADDR=f"10.7.0.{n % 250}")
        assert answer.status_code == 201, answer.content

    # The process's first POST imports the chain's code (web3) and reads the token's domain: the
    # web process's warm-up (run()'s WARMUP), not a POST's cost.
    post(bodies[0], 0)
    bodies = bodies[1:]
    half = len(bodies) // 2
    started = time.process_time()
    with CaptureQueriesContext(connection) as queries:
        for n, body in enumerate(bodies[:half]):
            post(body, n)
    cpu_ms = (time.process_time() - started) / half * 1000
    # Read now: after the capture, each request empties the connection's log again.
    kinds = Counter(_statement(q["sql"]) for q in queries.captured_queries)
    statements = sum(kinds.values())
    # CPU time, as the goal counts it: with the wall clock the waits for the node and the database
    # would fill the shares.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for n, body in enumerate(bodies[half:]):
        post(body, n)
    profiler.disable()
    found = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(tt for (file, _, name), (_, _, tt, _, _) in found.items())
    shares = {}
    for label, where in PARTS.items():
        file, name = where.split(":")
        cumulative = sum(ct for (f, _, n), (_, _, _, ct, _) in found.items() if f.endswith(file) and n == name)
        shares[label] = round(cumulative / total, 3)
    return {"posts": half, "cpuMsPerPost": round(cpu_ms, 2), "statementsPerPost": statements / half,
            "statements": {k: v / half for k, v in kinds.most_common()}, "shares": shares}  # fmt: skip


def render(result: dict) -> dict[str, str]:
    s = result["sides"]
    floor = s["floor-0"]["cpuMsPerRequest"]

    def post_row(name: str, key: str) -> list[str]:
        ms = s[key]["cpuMsPerRequest"]
        return [name, tables.number(ms, 2), tables.met(ms <= GOAL_CPU_MS), tables.number(ms / floor, 1),
                tables.met(ms / floor <= GOAL_FLOOR_RATIO)]  # fmt: skip

    cpu_rows = [
        ["the floor: GET /bench/floor (a constant JSON view)", tables.number(floor, 2), "", "1", ""],
        post_row("POST /api/responses, a signed stake, provider 0 ms away", "post-0"),
        post_row("the same, provider 200 ms away", "post-200"),
    ]
    cpu = tables.table([f"the web process's CPU per request (goal for a POST: ≤ {GOAL_CPU_MS:g} ms)", "ms", "",
                        f"× the floor (goal: ≤ {GOAL_FLOOR_RATIO:g})", ""], cpu_rows, right=(1, 3))  # fmt: skip
    p = result["inProcess"]
    parts = tables.table(
        [f"a POST in one process: {p['cpuMsPerPost']:.1f} ms of CPU, {p['statementsPerPost']:g} SQL statements",
         "share of its time"],
        [[label.replace("  ", "↳ "), f"{share:.1%}"] for label, share in p["shares"].items()], right=(1,),
    )  # fmt: skip
    statements = tables.table(["its SQL statements", "per POST"],
                              [[f"`{k}`", f"{v:g}"] for k, v in p["statements"].items()], right=(1,))  # fmt: skip
    cpu = "\n\n".join([cpu, parts, statements])
    names = {"floor-0": "floor", "post-0": "POST, 0 ms", "post-200": "POST, 200 ms"}
    burst_rows = [
        [names[k], tables.number(v["perSecond"]), tables.number(v["p50Seconds"], 3), tables.number(v["p99Seconds"], 3),
         tables.number(v["maxSeconds"], 3), tables.number(v["readsDuringP99Seconds"], 3),
         tables.number(v["rpcRequestsPerRequest"], 2), v["not2xx"]]
        for k, v in s.items()
    ]  # fmt: skip
    headers = ["burst", "answered per second", "p50 s", "p99 s", "max s", "public reads during it, p99 s",
               "RPC requests per request", "not 2xx"]  # fmt: skip
    far = s["post-200"]
    goal = tables.table(["goal, provider 200 ms away", "measured", ""], [
        [f"{GOAL_PER_SECOND:g} POSTs a second at p99 ≤ {GOAL_P99_SECONDS:g} s, nothing lost",
         f"{far['perSecond']:.0f} a second, p99 {far['p99Seconds']:.2f} s", tables.met(result["meetsGoal"]["burst"])],
    ])  # fmt: skip
    c = result["reconciled"]
    lost = tables.table(["POSTs", "answered 201", "signed stakes stored", "one pot call each", "calls queued",
                         "relayer messages waiting", "request-log lines", "nothing lost or doubled"],
                        [[c["posts"], c["posts"] - c["answeredNot201"], c["signedStakes"],
                          "yes" if not c["callsNotOne"] else f"no: {c['callsNotOne']}", c["callsQueued"],
                          c["relayerMessages"], ", ".join(f"{k}: {v}" for k, v in c["requestLog"].items()),
                          "yes" if c["nothingLost"] else "**no**"]], right=(0, 1, 2, 4, 5))  # fmt: skip
    meta = tables.provenance(result) + "\n\n" + tables.table(["the web process (the Procfile's line)"],
                                                                [[f"`{result['webCommand']}`"]])  # fmt: skip
    return {
        "post-cpu": cpu,
        "post-burst": tables.table(headers, burst_rows, right=(1, 2, 3, 4, 5, 6, 7)) + "\n\n" + goal + "\n\n" + lost
        + "\n\n" + meta,
    }  # fmt: skip


if __name__ == "__main__":
    django_main({"profile": profile}, sys.argv[1:])
