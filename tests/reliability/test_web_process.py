"""The Procfile's web process, as production runs it (devtools/procfile.py: its own command line
with production settings, bound to loopback), while every claim POST waits on a far RPC provider:
anvil behind devtools/rpc_delay.py, 1.5 s per request. Each POST reads its transaction once before
it stores the claim (chain/checks.py, claim_check_at_post), so a web process that serves one request
at a time (3 sync workers) would take 12 such claims in 4 rounds of 1.5 s and keep every public read
waiting behind them. The threaded workers take them side by side, read on meanwhile, and keep their
database connections for the next request."""

from __future__ import annotations

import re
import secrets
import threading
import time
from functools import partial

import pytest
import requests

from devtools import processes, procfile
from devtools.concurrency import at_once
from devtools.rpc_delay import delaying_proxy
from devtools.workers import database_url

from . import procs

pytestmark = [pytest.mark.integration, pytest.mark.postgresql]

DELAY_MS = 1500  # under CHAIN_POST_CHECK_TIMEOUT_SECONDS (2 s): every read is answered, late
CLAIMS = 12
CHAIN_ID = 11155111  # the production environment's (procs.production_env), which /healthz checks


HTTPS = {"X-Forwarded-Proto": "https"}  # as the router forwards a player's request


def procfile_threads() -> int:
    """Processes x threads of the Procfile's web line at its defaults: the most connections it may keep."""
    line = procfile.procfile_command("web")
    workers = re.search(r"--workers \$\{WEB_CONCURRENCY:-(\d+)\}", line)
    threads = re.search(r"--threads \$\{WEB_THREADS:-(\d+)\}", line)
    assert workers and threads, "the Procfile's web line names its processes and threads"
    return int(workers.group(1)) * int(threads.group(1))


def post_claim(base: str, challenge_id: int, n: int) -> tuple[int, float]:
    """Player n's claim on a hash no node knows (the read answers nothing, late): its status and
    seconds. A CSRF secret as the page has it from its cookie; the player's own address."""
    token = secrets.token_hex(16)
    body = {"challengeId": challenge_id, "submissionText": "48.8584, 2.2945", "submissionStake": "1.50",
            "transactionHash": "0x" + secrets.token_hex(32), "submissionSalt": secrets.token_hex(32),
            "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}  # fmt: skip
    headers = {**HTTPS, "X-Forwarded-For": f"10.9.0.{n + 1}", "X-CSRFToken": token,
               "Cookie": f"csrftoken={token}", "Referer": base.replace("http:", "https:") + "/"}  # fmt: skip
    started = time.monotonic()
    answer = requests.post(base + "/api/responses", json=body, headers=headers, timeout=60)
    return answer.status_code, time.monotonic() - started


def server_connections() -> int:
    """Connections to the test database other than this test's own."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_claims_waiting_on_a_far_provider_are_served_side_by_side_and_reads_go_on(
    transactional_db, make_challenge, tmp_path
):
    challenge = make_challenge(title="Far provider")
    port = processes.free_port()
    redis = processes.start_redis(port)  # its own Redis: the claims' messages and throttle counters
    reads: list[tuple[int, float]] = []
    try:
        with processes.anvil(chain_id=CHAIN_ID) as (node, _), delaying_proxy(node, delay_ms=0) as proxy:
            env = procs.production_env(
                database=database_url(),
                redis_url=f"redis://127.0.0.1:{port}/0",
                static_root=tmp_path / "static",
                CHAIN_RPC_URLS=proxy.url,
                TRUSTED_PROXY_HOPS="1",  # each player reaches it through the router as its own address
            )
            # Ready once /healthz answers 200 (plain HTTP, as the platform probes it); then the
            # provider moves away.
            with procfile.web(env, log=tmp_path / "web.log", ready_path="/healthz") as web:
                proxy.set_delay(DELAY_MS)
                before = proxy.stats()["requests"]  # the readiness probes' chain reads

                def read_meanwhile() -> None:
                    time.sleep(0.5)  # the claims are all waiting on the provider by now
                    started = time.monotonic()
                    answer = requests.get(web.base + "/api/challenges/active", headers=HTTPS, timeout=60)
                    reads.append((answer.status_code, time.monotonic() - started))

                reader = threading.Thread(target=read_meanwhile)
                started = time.monotonic()
                reader.start()
                answers = at_once([partial(post_claim, web.base, challenge.pk, n) for n in range(CLAIMS)])
                wall = time.monotonic() - started
                reader.join()
                asked = proxy.stats()["requests"] - before
                time.sleep(0.5)  # every request has finished on the server's side too
                kept = server_connections()
    finally:
        processes.stop(redis)

    assert [status for status, _ in answers] == [201] * CLAIMS, answers
    assert asked == CLAIMS  # each claim read its transaction once, through the far provider
    assert all(seconds >= DELAY_MS / 1000 for _, seconds in answers)
    # Side by side: about one provider round trip for all twelve, where one at a time per process
    # would take four (6 s).
    assert wall < 4 * DELAY_MS / 1000 * 2 / 3, (wall, answers)
    # The public read did not queue behind the claims' chain reads.
    assert reads and reads[0][0] == 200 and reads[0][1] < 1.0, reads
    # The threads that served them keep their connections for the next request (DATABASE_CONN_MAX_AGE),
    # at most one each (the readiness probes' threads keep theirs too, so the bound is the Procfile's
    # threads, not the requests of this test): with connections closed after each request none is left.
    assert 1 <= kept <= procfile_threads(), kept
