"""A bounded load run on loopback: gunicorn with the production settings (PostgreSQL, Redis for the
cache and the broker, an anvil node for the chain's check of each signed stake), locust driving the
mix in load/locustfile.py for a fixed time, then the reconciliation of what the server answered with
what the database holds.

The chain: anvil with the test USDC's code at Circle's Sepolia address (the production default of
USDC_ADDRESS; the token holds no constructor state, so its domain is that address's), and no code at
the pot's address, so each stake's simulation passes and the stake is stored; no relayer key, so
none is sent (each is stored refused: the run measures the POST, not the relayer).

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
# Every simulated player comes from 127.0.0.1, so the per-client stake throttle (20/min, proven in
# tests/reliability/test_abuse.py) would answer 429 after the first seconds: it is raised for the run.
LOAD_THROTTLE = "1000000/min"
CHAIN_ID = 11155111  # production's default chain, whose default USDC_ADDRESS is Circle's
USDC = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"


@dataclass
class Figures:
    seconds: float
    requests: int
    failures: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    routes: dict[str, dict]
    warmup: list[str]  # stakes answered 201 while warming up, before the timed window
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
            f"load: stake POSTs {posts}: answered 201 {len(self.created)}, identical re-posts answered 200 "
            f"{len(self.replayed)}; with the {len(self.warmup)} warm-up stakes, {len(self.created) + len(self.warmup)} "
            f"answered 201; rows in the database {self.rows}; lost {len(self.missing)}, "
            f"unexpected {len(self.extra)} -> {'RECONCILED' if self.reconciled else 'NOT RECONCILED'}",
            f"load: challenge staked sum {self.staked_sum}, response count {self.response_count} "
            "(no stake reaches the pot without a relayer: 0 and 0)",
            "load: latency by route:",
        ]
        lines += [
            f"  {route}: {r['requests']} requests, p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms"
            for route, r in sorted(self.routes.items())
        ]
        lines += ["load: answers by route and status:"]
        lines += [f"  {key}: {n}" for key, n in sorted(self.statuses.items())]
        return "\n".join(lines)


def warm_up(url: str, workers: int, signing_env: dict) -> list[str]:
    """Each gunicorn worker's first answers build templates and URL resolvers, and its first stake
    reads the token's domain: send every read route and the stake POST a few concurrent rounds first,
    so the timed window measures the steady state. Returns the commitments of the warm-up stakes
    answered 201 (they are rows too, reconciled with the rest)."""
    import secrets
    from concurrent.futures import ThreadPoolExecutor

    import requests

    os.environ.update(signing_env)
    from load import signing

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
        body = signing.signed_stake(secrets.token_bytes(32), "1")
        answer = requests.post(url + "/api/responses", data=json.dumps(body), headers=post_headers, timeout=60)
        assert answer.status_code == 201, (answer.status_code, answer.text[:300])
        return body["commitment"]

    created: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in range(3):
            codes = list(pool.map(get, [p for p in paths for _ in range(workers)]))
            assert all(code == 200 for code in codes), codes
            created += pool.map(post, range(workers))
    return created


def _serve_and_drive(env: dict, tmp: Path, results: Path, *, signing_env: dict, seconds: int, users: int,
                     workers: int) -> list[str]:  # fmt: skip
    with procs.gunicorn(env, workers=workers, log=tmp / "gunicorn.log") as url:
        warmed = warm_up(url, workers, signing_env)
        locust_env = {**os.environ, **signing_env, "LOAD_RESULTS": str(results), "PYTHONPATH": str(processes.ROOT)}
        cmd = [str(processes.BIN / "locust"), "-f", str(LOCUSTFILE), "--headless", "--host", url,
               "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--stop-timeout", "10",
               "--only-summary", "--loglevel", "WARNING", "--exit-code-on-error", "0"]  # fmt: skip
        with open(tmp / "locust.log", "ab") as log:
            subprocess.run(cmd, env=locust_env, cwd=processes.ROOT, stdout=log, stderr=subprocess.STDOUT,  # noqa: S603
                           check=True, timeout=seconds + 120)  # fmt: skip
    return warmed


def _token_at_circles_address(node: str) -> None:
    from web3 import HTTPProvider, Web3

    from chain.node.contracts import deploy

    w3 = Web3(HTTPProvider(node))
    code = w3.eth.get_code(deploy(w3, "TestUSDC", sender=w3.eth.accounts[0]))
    w3.provider.make_request("anvil_setCode", [USDC, "0x" + bytes(code).hex()])


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
    from django.conf import settings
    from eth_utils import to_checksum_address

    from challenges.models import PotState
    from responses.models import SignedStake

    redis.Redis.from_url(redis_url).flushdb()  # this run's own Redis DB: no old throttle counters or messages
    tmp = Path(workdir or tempfile.mkdtemp(prefix="geopoem-load-"))
    pot = to_checksum_address(settings.POT_ADDRESS)
    state = PotState.objects.get(challenge_id=challenge_id)
    signing_env = {
        "LOAD_CHALLENGE_ID": str(challenge_id),
        "LOAD_CHAIN_ID": str(CHAIN_ID),
        "LOAD_POT": pot,
        "LOAD_USDC": USDC,
        "LOAD_TERMS_DIGEST": state.terms_digest,
    }
    env = procs.production_env(
        database=database_url,
        redis_url=redis_url,
        static_root=tmp / "static",
        POT_ADDRESS=pot,
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
        with processes.anvil(chain_id=CHAIN_ID) as (node, _):
            _token_at_circles_address(node)
            warmed = _serve_and_drive(
                {**env, "CHAIN_RPC_URLS": node},
                tmp,
                results,
                signing_env=signing_env,
                seconds=seconds,
                users=users,
                workers=workers,
            )
    finally:
        # Keep the logs (gunicorn.log, locust.log), not the 15 MB of collected files.
        for name in ("static", "build"):
            shutil.rmtree(tmp / name, ignore_errors=True)
    data = json.loads(results.read_text())
    figures = Figures(**data, warmup=warmed)
    rows = SignedStake.objects.filter(challenge_id=challenge_id)
    stored = set(rows.values_list("commitment", flat=True))
    answered = set(figures.created) | set(warmed)
    figures.rows = rows.count()
    figures.missing = sorted(answered - stored)
    figures.extra = sorted(stored - answered)
    state.refresh_from_db()
    figures.staked_sum = f"{state.staked_units / 10**6:.6f}"
    figures.response_count = state.stake_count
    redis.Redis.from_url(redis_url).flushdb()  # the messages nobody will consume
    return figures
