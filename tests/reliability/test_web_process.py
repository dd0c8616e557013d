"""The Procfile's web process, as production runs it (devtools/procfile.py: its own command line
with production settings, bound to loopback), while every signed stake's POST waits on a far RPC
provider: anvil behind devtools/rpc_delay.py, 1.5 s per request. Each POST simulates the stake on
the chain once before it stores it (chain/pot/port.py, check_signed_stake), so a web process that
serves one request at a time (3 sync workers) would take 12 such stakes in 4 rounds of 1.5 s and keep
every public read waiting behind them. The threaded workers take them side by side, read on
meanwhile, and keep their database connections for the next request."""

from __future__ import annotations

import re
import secrets
import threading
import time
from functools import partial

import pytest
import requests
from eth_account import Account
from eth_utils import to_checksum_address
from web3 import HTTPProvider, Web3

from chain.node.contracts import deploy
from chain.pot.encoding import stake_nonce
from chain.token.authorization import ReceiveAuthorization, TokenDomain
from devtools import processes, procfile
from devtools.concurrency import at_once
from devtools.rpc_delay import delaying_proxy
from devtools.workers import database_url

from . import procs

pytestmark = [pytest.mark.integration, pytest.mark.postgresql]

DELAY_MS = 1500  # under CHAIN_POST_CHECK_TIMEOUT_SECONDS (2 s): every read is answered, late
CLAIMS = 12
CHAIN_ID = 11155111  # the production environment's (procs.production_env), which /healthz checks
# Circle's USDC on Sepolia, the production default: TestUSDC's code is put there (it holds no
# constructor state, so its domain is that address's).
USDC = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"


HTTPS = {"X-Forwarded-Proto": "https"}  # as the router forwards a player's request


def procfile_threads() -> int:
    """Processes x threads of the Procfile's web line at its defaults: the most connections it may keep."""
    line = procfile.procfile_command("web")
    workers = re.search(r"--workers \$\{WEB_CONCURRENCY:-(\d+)\}", line)
    threads = re.search(r"--threads \$\{WEB_THREADS:-(\d+)\}", line)
    assert workers and threads, "the Procfile's web line names its processes and threads"
    return int(workers.group(1)) * int(threads.group(1))


def signed_stake(challenge, pot: str, n: int, *, forged: bool = False) -> dict:
    """Player n's signed stake (docs/protocol.md 3.1), signed with the player's key over the stake
    nonce of the challenge's terms digest, as the page signs it; `forged`: signed by another key."""
    key = "0x" + bytes([n + 1]).hex() * 32
    payer = Account.from_key(key).address
    commitment = secrets.token_hex(32)
    valid_before = int(time.time()) + 1800
    nonce = stake_nonce(
        chain_id=CHAIN_ID, pot=pot, challenge_id=challenge.pk, terms_digest=challenge.opening.terms_digest,
        commitment=commitment, amount=1_500_000,
    )  # fmt: skip
    domain = TokenDomain("Test USD Coin", "2", CHAIN_ID, USDC)
    digest = ReceiveAuthorization(payer, pot, 1_500_000, 0, valid_before, nonce).digest(domain)
    signed = Account.unsafe_sign_hash(digest, "0x" + "ee" * 32 if forged else key)
    signature = "0x" + signed.r.to_bytes(32, "big").hex() + signed.s.to_bytes(32, "big").hex() + f"{signed.v:02x}"
    return {"challengeId": challenge.pk, "submitterAddress": payer, "submissionStake": "1.50",
            "commitment": commitment,
            "authorization": {"validAfter": 0, "validBefore": valid_before, "signature": signature}}  # fmt: skip


def post_stake(base: str, body: dict, n: int) -> tuple[int, float]:
    """The stake's POST as the page sends it: its status and seconds. A CSRF secret as the page has it
    from its cookie."""
    token = secrets.token_hex(16)
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


def test_stakes_waiting_on_a_far_provider_are_served_side_by_side_and_reads_go_on(
    transactional_db, make_challenge, settings, tmp_path
):
    challenge = make_challenge(title="Far provider")
    pot = to_checksum_address(settings.POT_ADDRESS)  # the recorded pot: no code, so each simulation passes
    port = processes.free_port()
    redis = processes.start_redis(port)  # its own Redis: the stakes' messages and throttle counters
    reads: list[tuple[int, float]] = []
    bodies = [signed_stake(challenge, pot, n) for n in range(CLAIMS)]
    try:
        with processes.anvil(chain_id=CHAIN_ID) as (node, _), delaying_proxy(node, delay_ms=0) as proxy:
            w3 = Web3(HTTPProvider(node))
            code = w3.eth.get_code(deploy(w3, "TestUSDC", sender=w3.eth.accounts[0]))
            w3.provider.make_request("anvil_setCode", [USDC, "0x" + bytes(code).hex()])
            env = procs.production_env(
                database=database_url(),
                redis_url=f"redis://127.0.0.1:{port}/0",
                static_root=tmp_path / "static",
                CHAIN_RPC_URLS=proxy.url,
                POT_ADDRESS=pot,
                TRUSTED_PROXY_HOPS="1",  # each player reaches it through the router as its own address
            )
            # Ready once /healthz answers 200 (plain HTTP, as the platform probes it); each process
            # has read the token's domain (forged signatures: refused after that read, before any
            # simulation); then the provider moves away.
            with procfile.web(env, log=tmp_path / "web.log", ready_path="/healthz") as web:
                probes = proxy.stats()["requests"]
                for _ in range(20):
                    warm = at_once(
                        [
                            partial(post_stake, web.base, signed_stake(challenge, pot, n, forged=True), n)
                            for n in range(48)
                        ]
                    )
                    assert {status for status, _ in warm} == {422}, warm
                    if proxy.stats()["requests"] - probes >= 2:  # one domain read per process (WEB_CONCURRENCY 2)
                        break
                assert proxy.stats()["requests"] - probes == 2
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
                answers = at_once([partial(post_stake, web.base, bodies[n], n) for n in range(CLAIMS)])
                wall = time.monotonic() - started
                reader.join()
                asked = proxy.stats()["requests"] - before
                time.sleep(0.5)  # every request has finished on the server's side too
                kept = server_connections()
    finally:
        processes.stop(redis)

    assert [status for status, _ in answers] == [201] * CLAIMS, answers
    assert asked == CLAIMS  # each stake simulated once, through the far provider
    assert all(seconds >= DELAY_MS / 1000 for _, seconds in answers)
    # Side by side: about one provider round trip for all twelve, where one at a time per process
    # would take four (6 s).
    assert wall < 4 * DELAY_MS / 1000 * 2 / 3, (wall, answers)
    # The public read did not queue behind the stakes' chain reads.
    assert reads and reads[0][0] == 200 and reads[0][1] < 1.0, reads
    # The threads that served them keep their connections for the next request (DATABASE_CONN_MAX_AGE),
    # at most one each (the readiness probes' threads keep theirs too, so the bound is the Procfile's
    # threads, not the requests of this test): with connections closed after each request none is left.
    assert 1 <= kept <= procfile_threads(), kept
