"""A bounded load run on loopback: gunicorn with the production settings (PostgreSQL, Redis for the
cache and the broker), locust driving the mix in load/locustfile.py for a fixed time, then the
reconciliation of what the server answered with what the database holds.

Used by `make load` (load/run.py, database geopoem_load) and by the short CI run
(tests/reliability/test_load.py, pytest's test database). Django must be set up by the caller
(the reconciliation reads the rows through the ORM)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from devtools import processes
from tests.reliability import procs

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
# Every simulated player comes from 127.0.0.1, so the per-client claim throttle (20/min, proven in
# tests/reliability/test_abuse.py) would answer 429 after the first seconds: it is raised for the run.
LOAD_THROTTLE = "1000000/min"


@dataclass
class Figures:
    seconds: float
    requests: int
    failures: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    routes: dict[str, dict]
    warmup: list[str]  # claims answered 201 while warming up, before the timed window
    statuses: dict[str, int]
    created: list[str]
    replayed: list[str]
    rows: int = 0
    missing: list[str] = field(default_factory=list)  # answered 201, no row
    extra: list[str] = field(default_factory=list)  # a row nobody was answered 201 for
    staked_sum: str = "0"
    response_count: int = 0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def server_errors(self) -> int:
        return sum(n for key, n in self.statuses.items() if int(key.rsplit(" ", 1)[1]) >= 500)

    @property
    def no_answer(self) -> int:
        return sum(n for key, n in self.statuses.items() if key.endswith(" 0"))

    @property
    def reconciled(self) -> bool:
        answered = self.created + self.warmup
        return len(answered) == len(set(answered)) == self.rows and not self.missing and not self.extra

    def report(self) -> str:
        posts = sum(n for key, n in self.statuses.items() if key.startswith("POST "))
        lines = [
            f"load: {self.requests} requests in {self.seconds:.1f} s = {self.rps:.0f} req/s; "
            f"p50 {self.p50_ms:.0f} ms, p99 {self.p99_ms:.0f} ms, max {self.max_ms:.0f} ms",
            f"load: 5xx answers {self.server_errors}, no answer {self.no_answer}",
            f"load: claim POSTs {posts}: answered 201 {len(self.created)}, identical re-posts answered 200 "
            f"{len(self.replayed)}; with the {len(self.warmup)} warm-up claims, {len(self.created) + len(self.warmup)} "
            f"answered 201; rows in the database {self.rows}; lost {len(self.missing)}, "
            f"unexpected {len(self.extra)} -> {'RECONCILED' if self.reconciled else 'NOT RECONCILED'}",
            f"load: challenge staked sum {self.staked_sum}, response count {self.response_count} "
            "(claims stay pending without a chain: 0 and 0)",
            "load: latency by route:",
        ]
        lines += [
            f"  {route}: {r['requests']} requests, p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms"
            for route, r in sorted(self.routes.items())
        ]
        lines += ["load: answers by route and status:"]
        lines += [f"  {key}: {n}" for key, n in sorted(self.statuses.items())]
        return "\n".join(lines)


def warm_up(url: str, workers: int, challenge_id: int) -> list[str]:
    """Each gunicorn worker's first answers build templates and URL resolvers, and its first claim
    imports the chain code (web3) to queue the verification: send every read route and the claim
    POST a few concurrent rounds first, so the timed window measures the steady state. Returns the
    transaction hashes of the warm-up claims answered 201 (they are rows too, reconciled with the rest)."""
    import secrets
    from concurrent.futures import ThreadPoolExecutor

    import requests

    https = {"X-Forwarded-Proto": "https"}
    paths = ["/", "/api/challenges/active", "/api/challenges/resolved", "/api/responses?limit=1", "/api/schema/"]
    page = requests.get(url + "/", headers=https, timeout=60)
    token = page.headers["Set-Cookie"].split("csrftoken=")[1].split(";")[0]
    post_headers = {
        **https,
        "Cookie": f"csrftoken={token}",
        "X-CSRFToken": token,
        "Referer": url.replace("http://", "https://") + "/",
        "Content-Type": "application/json",
    }

    def get(path: str) -> int:
        return requests.get(url + path, headers=https, timeout=60).status_code

    def post(_: int) -> str:
        tx = "0x" + secrets.token_hex(32)
        body = {"challengeId": challenge_id, "submissionText": "1.5, 2.5", "submissionStake": "1",
                "transactionHash": tx, "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                "submissionSalt": secrets.token_hex(32)}  # fmt: skip
        answer = requests.post(url + "/api/responses", data=json.dumps(body), headers=post_headers, timeout=60)
        assert answer.status_code == 201, (answer.status_code, answer.text[:300])
        return tx

    created: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in range(3):
            codes = list(pool.map(get, [p for p in paths for _ in range(workers)]))
            assert all(code == 200 for code in codes), codes
            created += pool.map(post, range(workers))
    return created


def _serve_and_drive(env: dict, tmp: Path, results: Path, *, challenge_id: int, seconds: int, users: int,
                     workers: int) -> list[str]:  # fmt: skip
    with procs.gunicorn(env, workers=workers, log=tmp / "gunicorn.log") as url:
        warmed = warm_up(url, workers, challenge_id)
        locust_env = {**os.environ, "LOAD_CHALLENGE_ID": str(challenge_id), "LOAD_RESULTS": str(results)}
        cmd = [str(processes.BIN / "locust"), "-f", str(LOCUSTFILE), "--headless", "--host", url,
               "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--stop-timeout", "10",
               "--only-summary", "--loglevel", "WARNING", "--exit-code-on-error", "0"]  # fmt: skip
        with open(tmp / "locust.log", "ab") as log:
            subprocess.run(cmd, env=locust_env, cwd=processes.ROOT, stdout=log, stderr=subprocess.STDOUT,  # noqa: S603
                           check=True, timeout=seconds + 120)  # fmt: skip
    return warmed


def run_load(
    *,
    database_url: str,
    redis_url: str,
    challenge_id: int,
    seconds: int,
    users: int,
    workers: int = 4,
    workdir: Path | None = None,
    collected: dict | None = None,
) -> Figures:
    """Serve with gunicorn, drive it with locust for `seconds`, reconcile. Every process is stopped
    by its PID on the way out. `collected`: the environment of a server whose static files and
    bundle snapshot are already in place (the tests' production server), to skip collectstatic."""
    import redis

    from challenges.models import Challenge
    from responses.models import Response

    redis.Redis.from_url(redis_url).flushdb()  # this run's own Redis DB: no old throttle counters or messages
    tmp = Path(workdir or tempfile.mkdtemp(prefix="geopoem-load-"))
    env = procs.production_env(
        database=database_url,
        redis_url=redis_url,
        static_root=tmp / "static",
        THROTTLE_RESPONSE_CREATE=LOAD_THROTTLE,
        LOG_LEVEL="WARNING",
    )
    if collected:
        keep = ("STATIC_ROOT", "DJANGO_SETTINGS_MODULE", "RELIABILITY_WEBPACK_STATS", "RELIABILITY_BUNDLE_DIR")
        env.update({key: collected[key] for key in keep})
    else:
        env.update(procs.snapshot_bundle(tmp))
        procs.collectstatic(tmp / "static", env)
    results = tmp / "results.json"
    try:
        warmed = _serve_and_drive(
            env, tmp, results, challenge_id=challenge_id, seconds=seconds, users=users, workers=workers
        )
    finally:
        # Keep the logs (gunicorn.log, locust.log), not the 15 MB of collected files.
        for name in ("static", "build"):
            shutil.rmtree(tmp / name, ignore_errors=True)
    data = json.loads(results.read_text())
    figures = Figures(**data, warmup=warmed)
    stored = set(Response.objects.filter(challenge_id=challenge_id).values_list("transaction_hash", flat=True))
    answered = set(figures.created) | set(warmed)
    figures.rows = Response.objects.filter(challenge_id=challenge_id).count()
    figures.missing = sorted(answered - stored)
    figures.extra = sorted(stored - answered)
    challenge = Challenge.objects.get(pk=challenge_id)
    figures.staked_sum = str(challenge.staked_sum)
    figures.response_count = challenge.response_count
    redis.Redis.from_url(redis_url).flushdb()  # the verification messages nobody will consume
    return figures
