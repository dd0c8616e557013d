"""Benchmark: the public answers against the floor (docs/performance.md section 6). gunicorn with the
production settings (bench.settings adds only the floor URL), PostgreSQL and Redis, loaded by wrk on loopback at 32
connections; each endpoint's requests per second and p99 as a ratio of the floor's (a bare constant JSON view) in
the same run. The floor and each endpoint alternate in rounds; the figure is the median of the rounds' ratios.

Then the same through nginx from Debian as a CDN-like shared cache (`proxy_cache`, honouring the
answers' `Cache-Control: ... s-maxage=1`), against the floor through the same nginx (which it does
not cache: the floor sends no caching headers)."""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from devtools.processes import free_port, stop

from . import tables
from .common import (
    DATABASE,
    REDIS_URL,
    command,
    django_main,
    flush_redis,
    fresh_database,
    gunicorn,
    in_django,
    load_average,
    log,
    median,
    write_result,
)

CONNECTIONS = 32
THREADS = 2
SECONDS = 4
WARMUP_SECONDS = 2
ROUNDS = int(os.environ.get("BENCH_API_ROUNDS", "5"))
FLOOR = "/bench/floor"
GOAL_RPS_RATIO = 0.90  # of the floor's req/s, and p99 within 1.5x (docs/performance.md section 6)
GOAL_P99_RATIO = 1.5
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF = """
user root;
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    # A CDN's shared cache: what the origin's Cache-Control allows (s-maxage=1 on the public answers;
    # nothing on the floor), revalidated with If-None-Match once stale, one request at a time per key.
    proxy_cache_path {dir}/cache levels=1 keys_zone=api:1m max_size=10m inactive=60s use_temp_path=off;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_set_header Host 127.0.0.1;
            proxy_cache api;
            proxy_cache_revalidate on;
            proxy_cache_lock on;
            add_header X-Cache-Status $upstream_cache_status;
        }}
    }}
}}
"""

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


def measure(base: str, endpoints: dict[str, str], rounds: int) -> dict[str, dict]:
    """Each endpoint in `rounds` rounds, each round the floor and the endpoint back to back (in
    alternating order), so a burst of load from other work on this shared machine hits both sides
    of a ratio alike. The figure is the median over rounds of each round's ratio."""
    figures = {}
    for name, path in endpoints.items():
        wrk(base + FLOOR, WARMUP_SECONDS)
        wrk(base + path, WARMUP_SECONDS)  # fills the cache and warms the workers
        runs = []
        for number in range(rounds):
            # Every other round the endpoint goes first, so a load that rises or falls over the
            # seconds of a round does not always favour the same side.
            if number % 2:
                endpoint = wrk(base + path, SECONDS)
                floor = wrk(base + FLOOR, SECONDS)
            else:
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


@contextlib.contextmanager
def nginx(upstream: str) -> Iterator[str]:
    """nginx on a free loopback port in front of `upstream`, with its own config and cache under a
    temporary directory; stopped by its own PID (SIGTERM to the master)."""
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=workdir, port=port, upstream=upstream.rsplit(":", 1)[1]))
    proc = subprocess.Popen([NGINX, "-p", str(workdir), "-e", str(workdir / "error.log"), "-c", str(conf)])
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(f"{base}{FLOOR}", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {(workdir / 'error.log').read_text()}") from None
                time.sleep(0.1)
        yield base
    finally:
        stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)


def cache_status(base: str, path: str) -> list[str]:
    """nginx's X-Cache-Status of two requests in a row: MISS (or EXPIRED) then HIT when it caches."""
    statuses = []
    for _ in range(2):
        with urllib.request.urlopen(base + path, timeout=5) as answer:
            statuses.append(answer.headers.get("X-Cache-Status", "-"))
    return statuses


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


def cpu_per_request(paths: list[str], times: int = 3000, repeats: int = 3) -> dict[str, float]:
    """Run inside the Django env (`python -m bench.api cpu PATH...`): the process CPU time of one
    request through the WSGI application (every middleware, no server, no network), median of
    `repeats` runs of `times` requests, in microseconds. CPU time, not wall time: another process
    on the shared cores does not count (only what it does to the caches)."""
    import io
    import sys

    from django.core.wsgi import get_wsgi_application

    app = get_wsgi_application()

    def environ(path: str) -> dict:
        return {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1",
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(b""),
            "wsgi.errors": sys.stderr,
        }

    statuses = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    def once(path: str, n: int) -> float:
        started = time.process_time()
        for _ in range(n):
            b"".join(app(environ(path), start_response))
        return (time.process_time() - started) / n * 1e6

    for path in paths:
        once(path, 300)  # fills the cache and the copy, subscribes
    time.sleep(0.5)
    runs = {path: [] for path in paths}
    for _ in range(repeats):
        for path in paths:
            runs[path].append(once(path, times))
    if any(not s.startswith("200") for s in statuses):
        raise RuntimeError(f"not every answer was 200: {set(statuses)}")
    return {path: median(values) for path, values in runs.items()}


CHANGES = 10


def change_active(challenge_id: int, count: int) -> list[float]:
    """Run inside the Django env (`python -m bench.api change ID N`): N changes of the active challenge's
    title, each committed with its bump as the admin or a worker would, 0.5 s apart; the wall time
    right after each commit (the bump is published by then)."""
    from challenges.models import Challenge
    from config.public_cache import public_answers_mark_stale
    from django.db import transaction

    committed = []
    for number in range(count):
        with transaction.atomic():
            Challenge.objects.filter(pk=challenge_id).update(poem_title=f"Change {number}")
            public_answers_mark_stale()
        committed.append(time.time())
        time.sleep(0.5)
    return committed


def staleness_under_load(base: str, env: dict[str, str], path: str, challenge_id: int) -> dict:
    """While wrk loads `path`, another process commits CHANGES changes of the active challenge; a
    poller reads `path` back to back. For each change: from its commit to the end of the first
    answer that shows it, and how many answers to requests started over 100 ms after the commit were
    still older."""
    import threading

    samples: list[tuple[float, float, str]] = []
    stop_polling = threading.Event()

    def poll() -> None:
        while not stop_polling.is_set():
            started = time.time()
            with urllib.request.urlopen(base + path, timeout=30) as answer:
                title = json.loads(answer.read())["poemTitle"]
            samples.append((started, time.time(), title))

    load = subprocess.Popen(
        ["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", "-d30s", base + path], stdout=subprocess.DEVNULL
    )
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        committed = in_django("bench.api", env, "change", str(challenge_id), str(CHANGES))
    finally:
        stop_polling.set()
        poller.join(timeout=30)
        stop(load)
    delays, late = [], 0
    for number, at in enumerate(committed):
        title = f"Change {number}"
        shown = [end for started, end, seen in samples if started >= at - 5 and seen == title and end >= at]
        if shown:
            delays.append((min(shown) - at) * 1000)
        newer = {f"Change {n}" for n in range(number, CHANGES)}
        late += sum(1 for started, _, seen in samples if started > at + 0.1 and seen not in newer)
    delays.sort()
    return {
        "changes": CHANGES,
        "seen": len(delays),
        "polls": len(samples),
        "commitToNewAnswerMedianMs": median(delays) if delays else None,
        "commitToNewAnswerMaxMs": delays[-1] if delays else None,
        "olderAnswersAfter100Ms": late,
    }


def nginx_version() -> str:
    done = subprocess.run([NGINX, "-v"], stderr=subprocess.PIPE, text=True)
    return done.stderr.strip().rsplit("/", 1)[-1]


def run() -> dict:
    load_before = load_average()
    env = fresh_database()
    seeded = in_django("bench.site", env, "seed")
    endpoints = {
        "active": "/api/challenges/active",
        "resolved": "/api/challenges/resolved",
        "winners": f"/api/challenges/{seeded['resolved'][-1]}/winners",
    }
    flush_redis()
    with gunicorn(env) as base:
        cached = measure(base, endpoints, ROUNDS)
        staleness = staleness_under_load(base, env, endpoints["active"], seeded["active"])
        log(f"invalidation under load: {staleness}")
        with nginx(base) as front:
            statuses = {name: cache_status(front, path) for name, path in endpoints.items()}
            statuses["floor"] = cache_status(front, FLOOR)
            log(f"nginx X-Cache-Status of two requests in a row: {statuses}")
            fronted = measure(front, endpoints, ROUNDS)
    # The same endpoints with a dummy cache: what the cache is worth (informational, no goal).
    with gunicorn({**env, "BENCH_NO_CACHE": "1"}) as base:
        uncached = measure(base, endpoints, 1)

    flush_redis()
    cpu = in_django("bench.api", env, "cpu", FLOOR, *endpoints.values())
    log("CPU per request in-process: " + ", ".join(f"{p} {us:.0f} us" for p, us in cpu.items()))
    rtt = redis_round_trip()
    log(f"Redis MGET round trip: median {rtt['medianMs']:.2f} ms, p99 {rtt['p99Ms']:.2f} ms")
    rows = []
    for name in endpoints:
        for variant, figures in (
            ("cached", cached[name]),
            ("nginx proxy_cache", fronted[name]),
            ("no cache", uncached[name]),
        ):
            row = {
                "endpoint": figures["path"].replace(f"/{seeded['resolved'][-1]}/", "/{id}/"),
                "variant": variant,
                **{k: v for k, v in figures.items() if k not in ("path",)},
                "meetsGoal": figures["rpsRatio"] >= GOAL_RPS_RATIO
                and figures["p99Ratio"] <= GOAL_P99_RATIO
                and figures["non2xx"] == 0,
            }
            if variant == "nginx proxy_cache":
                # The same figures against the direct floor (gunicorn alone) of the cached rounds.
                row["directFloorRps"] = cached[name]["floorRps"]
                row["directFloorP99Ms"] = cached[name]["floorP99Ms"]
                row["rpsRatioToDirectFloor"] = figures["rps"] / cached[name]["floorRps"]
                row["p99RatioToDirectFloor"] = figures["p99Ms"] / cached[name]["floorP99Ms"]
                row["cacheStatus"] = statuses[name]
            rows.append(row)
    return write_result(
        "api",
        {
            "command": command("api", "BENCH_API_ROUNDS"),
            "setup": {
                "server": "gunicorn, 2 sync workers; production settings + /bench/floor",
                "cdn": f"nginx {nginx_version()}, 1 worker, proxy_cache honouring the origin's Cache-Control, "
                "proxy_cache_revalidate and proxy_cache_lock on; its floor is /bench/floor through the same nginx",
                "load": f"wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s --latency; {ROUNDS} rounds per endpoint",
                "data": "the pot's events recorded (devtools/pot_records.py): 5 paid challenges of 10 stakes, "
                "1 open challenge of 10",
                "database": f"PostgreSQL {DATABASE}, Redis {REDIS_URL}",
            },
            "goals": {"rpsRatioAtLeast": GOAL_RPS_RATIO, "p99RatioAtMost": GOAL_P99_RATIO},
            "nginxCacheStatus": statuses,
            "invalidationUnderLoad": staleness,
            "rows": rows,
            "redisRoundTrip": rtt,
            "cpuPerRequestUs": {
                name: {"us": cpu[path], "floorUs": cpu[FLOOR], "ratio": cpu[path] / cpu[FLOOR]}
                for name, path in endpoints.items()
            },
        },
        load_before=load_before,
    )


def render(result: dict) -> dict[str, str]:
    rows = [
        [f"`{r['endpoint']}`", r["variant"], tables.number(r["rps"]), tables.number(r["floorRps"]),
         tables.number(r["rpsRatio"], 2), tables.number(r["p99Ms"], 1), tables.number(r["floorP99Ms"], 1),
         tables.number(r["p99Ratio"], 2), tables.met(r["meetsGoal"]) if r["variant"] == "cached" else "(no goal)"]
        for r in result["rows"]
    ]  # fmt: skip
    headers = ["endpoint", "variant", "req/s", "floor req/s", "req/s ratio", "p99 ms", "floor p99 ms", "p99 ratio",
               f"goal: ≥ {GOAL_RPS_RATIO:g} and ≤ {GOAL_P99_RATIO:g}"]  # fmt: skip
    cpu = tables.table(
        ["CPU per request in one process (µs)", "answer", "floor", "ratio"],
        [[name, tables.number(v["us"]), tables.number(v["floorUs"]), tables.number(v["ratio"], 2)]
         for name, v in result["cpuPerRequestUs"].items()],
        right=(1, 2, 3),
    )  # fmt: skip
    s = result["invalidationUnderLoad"]
    stale = tables.table(
        ["changes committed under load", "seen", "commit to the new answer, median / max ms",
         "older answers after 100 ms"],
        [[s["changes"], s["seen"], f"{tables.number(s['commitToNewAnswerMedianMs'])} / "
          f"{tables.number(s['commitToNewAnswerMaxMs'])}", s["olderAnswersAfter100Ms"]]],
        right=(0, 1, 3),
    )  # fmt: skip
    body = tables.table(headers, rows, right=(2, 3, 4, 5, 6, 7))
    return {"api": "\n\n".join([body, cpu, stale, tables.provenance(result)])}


if __name__ == "__main__":
    django_main(
        {
            "cpu": lambda *paths: cpu_per_request(list(paths)),
            "change": lambda challenge_id, count: change_active(int(challenge_id), int(count)),
        },
        sys.argv[1:],
    )
