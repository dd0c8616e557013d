"""Benchmark 1: API throughput. gunicorn with the production settings (bench.settings adds only the
floor URL), PostgreSQL and Redis, loaded by wrk on loopback at 32 connections; each endpoint's
requests per second and p99 as a ratio of the floor's (a bare constant JSON view) in the same run.
The floor and each endpoint alternate in rounds; the figure is the median of the rounds' ratios."""

import json
import re
import subprocess

from .common import (
    DATABASE,
    REDIS_URL,
    django_env,
    flush_redis,
    gunicorn,
    log,
    manage,
    python_module,
    recreate_database,
    write_result,
)

CONNECTIONS = 32
THREADS = 2
SECONDS = 6
WARMUP_SECONDS = 2
ROUNDS = 3
FLOOR = "/bench/floor"
GOAL_RPS_RATIO = 0.70
GOAL_P99_RATIO = 3.0

UNIT = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def parse_wrk(text: str) -> dict:
    def duration(label: str) -> float:
        match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        if not match:
            raise ValueError(f"wrk output has no {label} line:\n{text}")
        return float(match[1]) * UNIT[match[2]]

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text)[1])
    requests = int(re.search(r"(\d+) requests in", text)[1])
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    return {
        "rps": rps,
        "requests": requests,
        "p50Ms": duration("50%"),
        "p99Ms": duration("99%"),
        "non2xx": int(non_2xx[1]) if non_2xx else 0,
        # read errors are gunicorn's sync workers closing each connection after one answer; not failures.
        "connectErrors": int(socket[1]) if socket else 0,
        "timeouts": int(socket[4]) if socket else 0,
    }


def wrk(url: str, seconds: int) -> dict:
    done = subprocess.run(
        ["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", url],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    return parse_wrk(done.stdout)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def measure(base: str, endpoints: dict[str, str], rounds: int) -> dict[str, dict]:
    """Each endpoint in `rounds` rounds, each round the floor then the endpoint back to back, so a
    burst of load from other work on this shared machine hits both sides of a ratio alike. The
    figure is the median over rounds of each round's ratio."""
    figures = {}
    for name, path in endpoints.items():
        wrk(base + FLOOR, WARMUP_SECONDS)
        wrk(base + path, WARMUP_SECONDS)  # fills the cache and warms the workers
        runs = []
        for _ in range(rounds):
            floor = wrk(base + FLOOR, SECONDS)
            endpoint = wrk(base + path, SECONDS)
            runs.append(
                {
                    "floor": floor,
                    "endpoint": endpoint,
                    "rpsRatio": endpoint["rps"] / floor["rps"],
                    "p99Ratio": endpoint["p99Ms"] / floor["p99Ms"],
                }
            )
            log(
                f"{name} {path}: {endpoint['rps']:.0f} rps (floor {floor['rps']:.0f}), "
                f"p99 {endpoint['p99Ms']:.1f} ms (floor {floor['p99Ms']:.1f} ms)"
            )
        figures[name] = {
            "path": path,
            "rounds": runs,
            "rps": median([r["endpoint"]["rps"] for r in runs]),
            "p99Ms": median([r["endpoint"]["p99Ms"] for r in runs]),
            "floorRps": median([r["floor"]["rps"] for r in runs]),
            "floorP99Ms": median([r["floor"]["p99Ms"] for r in runs]),
            "rpsRatio": median([r["rpsRatio"] for r in runs]),
            "p99Ratio": median([r["p99Ratio"] for r in runs]),
            "non2xx": sum(r["endpoint"]["non2xx"] for r in runs),
        }
    return figures


def redis_round_trip(times: int = 2000) -> dict:
    """What one cache hit waits for beyond the floor: an MGET on the shared Redis, timed from here."""
    import time

    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.set("bench:rtt", b"x" * 500)
    durations = []
    for _ in range(times):
        started = time.perf_counter()
        client.mget(["bench:rtt", "bench:none"])
        durations.append((time.perf_counter() - started) * 1000)
    client.delete("bench:rtt")
    durations.sort()
    return {"medianMs": median(durations), "p99Ms": durations[int(len(durations) * 0.99)], "times": times}


def run() -> dict:
    url = recreate_database(DATABASE)
    env = django_env(url)
    manage(env, "migrate", "--noinput", "-v", "0")
    seeded = json.loads(python_module("bench.data", env, "api"))
    endpoints = {
        "active": "/api/challenges/active",
        "resolved": "/api/challenges/resolved",
        "winners": f"/api/challenges/{seeded['resolved'][-1]}/winners",
    }
    flush_redis()
    with gunicorn(env) as base:
        cached = measure(base, endpoints, ROUNDS)
    # The same endpoints with a dummy cache: what the cache is worth (informational, no goal).
    with gunicorn(django_env(url, BENCH_NO_CACHE="1")) as base:
        uncached = measure(base, endpoints, 1)

    rtt = redis_round_trip()
    log(f"Redis MGET round trip: median {rtt['medianMs']:.2f} ms, p99 {rtt['p99Ms']:.2f} ms")
    rows = []
    for name in endpoints:
        for variant, figures in (("cached", cached[name]), ("no cache", uncached[name])):
            rows.append(
                {
                    "endpoint": figures["path"].replace(f"/{seeded['resolved'][-1]}/", "/{id}/"),
                    "variant": variant,
                    **{k: v for k, v in figures.items() if k not in ("path",)},
                    "meetsGoal": figures["rpsRatio"] >= GOAL_RPS_RATIO
                    and figures["p99Ratio"] < GOAL_P99_RATIO
                    and figures["non2xx"] == 0,
                }
            )
    return write_result(
        "api",
        {
            "command": "make bench  (.venv/bin/python -m bench.run api)",
            "setup": {
                "server": "gunicorn as in the Procfile, 2 sync workers; production settings + /bench/floor",
                "load": f"wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s --latency; per endpoint {ROUNDS} rounds of "
                f"floor then endpoint, after {WARMUP_SECONDS} s warm-ups; the median of the rounds' ratios",
                "data": "5 resolved challenges x 10 confirmed responses, 1 active challenge with 10",
                "database": f"PostgreSQL {DATABASE}, Redis {REDIS_URL}",
                "cpu": subprocess.run(["nproc"], stdout=subprocess.PIPE, text=True).stdout.strip() + " cores, shared",
            },
            "goals": {"rpsRatioAtLeast": GOAL_RPS_RATIO, "p99RatioBelow": GOAL_P99_RATIO},
            "rows": rows,
            "redisRoundTrip": rtt,
        },
    )


if __name__ == "__main__":
    run()
