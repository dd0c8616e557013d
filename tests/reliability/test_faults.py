"""Faults under the deployed shape (tests/reliability/stack.py): gunicorn with the production
settings, a Celery worker and beat, a private PostgreSQL cluster, a private redis-server and anvil,
all on free loopback ports and stopped by their PIDs. Each test breaks one part for real (a process
stopped, a server restarted, a node that hangs or answers errors), posts claims through the API
like the page does, and checks the outcome in the database: every claim decided exactly once, none
rejected because of the fault, the stake counted once, no claim lost.

Related tests elsewhere (not repeated here): chain/tests/test_verify.py
::test_two_concurrent_verifications_count_the_stake_once (two threads racing payment_verify at a
barrier) and chain/tests/test_verify.py::test_verifying_twice_counts_the_stake_once."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import ExitStack
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from chain.client import ChainClient, ChainUnavailable
from chain.verification import Outcome, payment_verify
from devtools import processes
from devtools.anchors import record_confirmed_anchor
from responses.models import ResponseStatus
from responses.services import response_create

from .stack import ANVIL_CHAIN_ID, Stack

pytestmark = [
    pytest.mark.integration,
    pytest.mark.postgresql,
    # Every test of the module in pytest-django's transactional group, so they run together and the
    # module's stack starts once (a `db` test would be moved ahead of the others, splitting it).
    pytest.mark.django_db(transaction=True),
]

FAULTS_SURVIVED: list[str] = []  # printed in the terminal summary (conftest.py)


@pytest.fixture(scope="module")
def stack(production_server, tmp_path_factory):
    with ExitStack() as exits:
        deploy = Stack(tmp_path_factory.mktemp("faults"), production_server.env, exits)
        deploy.up()
        t = time.monotonic()
        deploy.worker("main")
        deploy.beat()
        print("\nstack up:", deploy.timings, f"worker+beat {time.monotonic() - t:.1f}s")
        yield deploy


def post_all(stack: Stack, claims) -> list[int]:
    ids = []
    for claim in claims:
        answer = stack.post(claim)
        assert answer.status_code == 201, (answer.status_code, answer.text[:500])
        assert answer.json()["status"] == "pending"
        ids.append(answer.json()["id"])
    return ids


def assert_confirmed_once(stack: Stack, claims, pot_before) -> None:
    states = stack.wait_decided(claims)
    assert set(states.values()) == {"confirmed"}, states
    staked, count = stack.pot()
    assert staked - pot_before[0] == sum(c.stake for c in claims)
    assert count - pot_before[1] == len(claims)
    assert stack.payments(claims) == len(claims)


# --- The RPC node --------------------------------------------------------------------------------


def test_rpc_node_unreachable_then_back_claims_wait_and_confirm(stack):
    pot = stack.pot()
    claims = [stack.pay("1.5"), stack.pay("2")]
    stack.mine(1)  # deep enough: only the missing node stands between the claims and confirmation
    stack.anvil.stop()
    try:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", stack.anvil.port)) != 0, "the node still answers"
        post_all(stack, claims)
        # The worker tries, finds no node, and keeps the claims pending (retry with backoff, sweeper).
        deadline = time.monotonic() + 30
        while "no RPC node answered" not in stack.tail(20000):
            assert time.monotonic() < deadline, stack.tail()
            time.sleep(0.2)
        time.sleep(2)
        assert set(stack.statuses(claims).values()) == {"pending"}
    finally:
        stack.anvil.start()  # the same chain (state dumped on SIGTERM, loaded on start)
    assert_confirmed_once(stack, claims, pot)
    FAULTS_SURVIVED.append("RPC node unreachable, then back")


class SilentServer:
    """A TCP server that accepts connections and never answers: an RPC node that hangs, a stalled
    Redis or a half-open network (the fault a stopped server does not show: connections are
    refused at once there). On `port`, or a free one."""

    def __init__(self, port: int = 0) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(128)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.accepted = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def _answering(status: int, body: bytes) -> ThreadingHTTPServer:
    """An HTTP server that answers every POST with `status` and `body`: a node that errs."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.server.hits += 1

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.hits = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def bad_nodes():
    """Four RPC URLs that do not work, each in its own way, on real loopback sockets."""
    hang = SilentServer()
    servers = {
        "http_503": _answering(503, b'{"message": "upstream unavailable"}'),
        "rpc_error": _answering(
            200, b'{"jsonrpc": "2.0", "id": 0, "error": {"code": -32603, "message": "internal error"}}'
        ),
        "garbage": _answering(200, b"<html>not json</html>"),
    }
    urls = [hang.url] + [f"http://127.0.0.1:{s.server_address[1]}" for s in servers.values()]
    try:
        yield hang, servers, urls
    finally:
        hang.close()
        for server in servers.values():
            server.shutdown()
            server.server_close()


@pytest.fixture
def anvil_settings(stack, settings):
    settings.CHAIN_ID = ANVIL_CHAIN_ID
    settings.USDC_ADDRESS = stack.usdc
    settings.TREASURY_ADDRESS = stack.treasury
    settings.CHAIN_CONFIRMATIONS = "2"
    return settings


def _claim_here(stack, make_challenge, stake: str):
    """A paid claim stored in this process's test database (the stack's anvil holds the payment)."""
    # Anchored at the stack's head, as the worker would record it: a made-up anchor block above the
    # chain's height would reject the stake as `early` whenever this test runs on a young chain.
    challenge = make_challenge(title="Failover", anchored=False)
    record_confirmed_anchor(challenge, block_number=ChainClient([stack.anvil.url], timeout=10.0).block_number())
    claim = stack.pay(stake, challenge_id=challenge.pk)
    stack.mine(1)
    body = claim.body
    response = response_create(
        challenge_id=challenge.pk,
        submission_text=body["submissionText"],
        submission_stake=claim.stake,
        transaction_hash=claim.tx_hash,
        submitter_address=body["submitterAddress"],
        submission_salt=body["submissionSalt"],
    ).response
    return challenge, response


def test_rpc_nodes_that_hang_or_answer_errors_are_timed_out_and_skipped_for_the_next_url(
    stack, bad_nodes, anvil_settings, make_challenge
):
    """CHAIN_RPC_URLS lists a node that hangs, one that answers HTTP 503, one that answers a JSON-RPC
    error and one that answers garbage, then the working node. A verification reads all its answers
    from one node (chain/client.py, on_one_node): its pass waits out the hanging node's timeout once
    (1 s, never longer), skips each erring node once and is answered entirely by the last. The claim
    confirms; its stake is counted once."""
    hang, servers, urls = bad_nodes
    challenge, response = _claim_here(stack, make_challenge, "3")
    client = ChainClient([*urls, stack.anvil.url], timeout=1.0)
    started = time.monotonic()
    outcome = payment_verify(response_id=response.pk, client=client)
    took = time.monotonic() - started
    assert outcome == Outcome(status=ResponseStatus.CONFIRMED, changed=True)
    calls = hang.accepted  # one connection per RPC call: the pass's first call only, then it moved on
    assert calls == 1
    assert all(server.hits == 1 for server in servers.values())
    assert calls * 1.0 <= took < calls * 1.0 + 10, took  # each hung call cut at the timeout
    challenge.refresh_from_db()
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("3"), 1)
    print(f"\nfailover: {calls} RPC calls through 4 bad nodes (1 s timeout) confirmed the claim in {took:.1f} s")
    FAULTS_SURVIVED.append("RPC nodes that hang or answer errors (timeouts, failover)")


def test_with_only_bad_nodes_the_claim_waits_and_is_never_rejected(stack, bad_nodes, anvil_settings, make_challenge):
    """No URL answers: the verification says "try later" (ChainUnavailable, which the task retries)
    and the claim stays pending, never rejected for the node's fault."""
    _hang, _servers, urls = bad_nodes
    _challenge, response = _claim_here(stack, make_challenge, "2")
    with pytest.raises(ChainUnavailable, match="no RPC node answered"):
        payment_verify(response_id=response.pk, client=ChainClient(urls, timeout=1.0))
    response.refresh_from_db()
    assert (response.status, response.rejection_code) == (ResponseStatus.PENDING, "")


# --- PostgreSQL --------------------------------------------------------------------------------


def test_postgres_restarted_under_a_running_worker(stack):
    """Claims wait for depth (the worker re-checks them every second) while PostgreSQL is stopped
    and started again under the worker: the worker stays up, and every claim confirms once."""
    pot = stack.pot()
    claims = stack.pay_in_one_block("5", "6")  # one confirmation of two: pending, re-checked
    post_all(stack, claims)
    worker = stack.workers["main"]
    before = {tx: updated for tx, updated in stack.sql(
        "SELECT transaction_hash, updated_at FROM responses_response WHERE transaction_hash = ANY(%s)",
        [c.tx_hash for c in claims])}  # fmt: skip
    deadline = time.monotonic() + 20
    while True:  # the worker has looked at both (touched: not deep enough) before the restart
        now = dict(stack.sql(
            "SELECT transaction_hash, updated_at FROM responses_response WHERE transaction_hash = ANY(%s)",
            [c.tx_hash for c in claims]))  # fmt: skip
        if all(now[tx] != before[tx] for tx in before):
            break
        assert time.monotonic() < deadline, stack.tail()
        time.sleep(0.1)
    log = stack.workdir / "worker-main.log"
    seen = len(log.read_text())
    stack.pg.stop()  # -m fast: the worker's connection is cut
    time.sleep(3)  # retries and sweeps fail against the stopped server meanwhile
    stack.pg.start()
    assert worker.poll() is None, stack.tail()
    # The worker's tasks really hit the stopped database (those messages are gone: only the sweeper
    # can bring their claims back).
    assert "OperationalError" in log.read_text()[seen:], stack.tail()
    stack.mine(1)  # now deep enough
    assert_confirmed_once(stack, claims, pot)
    assert worker.poll() is None  # the same worker process did it
    # And the restarted database serves new claims as before.
    later = [stack.pay("7")]
    stack.mine(1)
    pot = stack.pot()
    post_all(stack, later)
    assert_confirmed_once(stack, later, pot)
    FAULTS_SURVIVED.append("PostgreSQL restarted under a running worker")


# --- Redis (cache and broker) ----------------------------------------------------------------


def test_redis_stopped_while_claims_arrive(stack):
    """Redis is the cache (the claim throttle, the public answers) and the broker. With it stopped,
    POSTs still answer 201 and store the claim, and the active challenge still loads; once it is
    back (empty: the messages are gone), the sweeper on beat re-queues the stored claims and the
    worker confirms them."""
    pot = stack.pot()
    claims = [stack.pay("1"), stack.pay("1.25"), stack.pay("8")]
    stack.mine(1)
    stack.redis.stop()
    try:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", stack.redis.port)) != 0, "redis still answers"
        started = time.monotonic()
        post_all(stack, claims)
        took = time.monotonic() - started
        assert set(stack.statuses(claims).values()) == {"pending"}
        # The page's reads still answer, from the database (the public cache is skipped).
        active = requests.get(stack.url + "/api/challenges/active", headers={"X-Forwarded-Proto": "https"}, timeout=30)
        assert active.status_code == 200 and active.json()["id"] == stack.challenge_id, active.text[:300]
    finally:
        stack.redis.start()
    print(f"\nredis down: {len(claims)} POSTs answered 201 in {took:.1f} s")
    assert_confirmed_once(stack, claims, pot)
    FAULTS_SURVIVED.append("Redis stopped while claims arrive")


def test_a_redis_that_hangs_does_not_hang_the_claims(stack):
    """Redis accepts connections but never answers. Every Redis socket has a timeout (settings), so
    each POST still answers 201 well within gunicorn's 30 s worker timeout and stores the claim;
    once Redis answers again the sweeper re-queues the claims and the worker confirms them."""
    pot = stack.pot()
    claims = [stack.pay("1.5"), stack.pay("2")]
    stack.mine(1)
    stack.redis.stop()
    silent = SilentServer(stack.redis.port)
    try:
        took = []
        for claim in claims:
            started = time.monotonic()
            post_all(stack, [claim])
            took.append(time.monotonic() - started)
        assert set(stack.statuses(claims).values()) == {"pending"}
        assert max(took) < 20, took
    finally:
        silent.close()
        stack.redis.start()
    print(f"\nredis hung: POSTs answered 201 in {', '.join(f'{t:.1f}' for t in took)} s")
    assert_confirmed_once(stack, claims, pot)
    FAULTS_SURVIVED.append("Redis hung (accepts, never answers) while claims arrive")


# --- Two workers -----------------------------------------------------------------------------


def test_two_workers_verifying_the_same_claims_at_once_count_each_stake_once(stack):
    """A second worker process; every claim's verification queued three times (the POST's own and
    two more, as a sweeper and a retry would), so both workers verify the same claims when the block
    that makes them deep enough arrives."""
    stack.worker("second")
    try:
        pot = stack.pot()
        claims = stack.pay_in_one_block("1", "2", "3", "4", "5", "6")
        ids = post_all(stack, claims)  # not deep enough yet: both workers keep re-checking them
        for response_id in ids:
            stack.send_verify(response_id)
            stack.send_verify(response_id)
        time.sleep(1)
        stack.mine(1)
        assert_confirmed_once(stack, claims, pot)
        logs = {name: (stack.workdir / f"worker-{name}.log").read_text() for name in ("main", "second")}
        for name, text in logs.items():
            assert "chain.verify_response" in text and "succeeded" in text, f"worker {name} verified nothing"
    finally:
        processes.stop(stack.workers.pop("second"))
    FAULTS_SURVIVED.append("two workers verifying the same claims at once")


# --- /healthz ----------------------------------------------------------------------------------


def healthz(stack: Stack) -> requests.Response:
    return requests.get(stack.url + "/healthz", headers={"X-Forwarded-Proto": "https"}, timeout=30)


# Each web process shares a part's answer for HEALTHZ_CACHE_SECONDS (default 5, config/health.py): a
# part that stops or comes back is reported within that, plus a check's own timeouts (2 s each). The
# web processes do not share answers with each other, so until that time has passed two probes may
# be answered by processes that saw the part at different moments.
HEALTHZ_NOTICE_SECONDS = 5 + 2 * 2 + 3


def healthz_until(stack: Stack, wanted: int, failing: list[str]) -> tuple[requests.Response, float]:
    """Probes until one answers `wanted` naming `failing` (or the notice time is over); the last
    answer and how long it took."""
    started = time.monotonic()
    while True:
        answer = healthz(stack)
        waited = time.monotonic() - started
        if (answer.status_code, answer.json()["failing"]) == (wanted, failing) or waited > HEALTHZ_NOTICE_SECONDS:
            return answer, waited
        time.sleep(0.25)


@pytest.mark.parametrize("part", ["database", "broker", "chain"])
def test_healthz_names_the_part_that_is_down_and_recovers(stack, part):
    server = {"database": stack.pg, "broker": stack.redis, "chain": stack.anvil}[part]
    answer, waited = healthz_until(stack, 200, [])  # a part the previous case stopped may still be shared
    assert answer.status_code == 200, (waited, answer.text)
    assert answer.json() == {
        "status": "ok",
        "failing": [],
        "parts": {"database": "ok", "broker": "ok", "chain": "ok"},
    }
    server.stop()
    try:
        answer, waited = healthz_until(stack, 503, [part])
        assert answer.status_code == 503, (waited, answer.text)
        body = answer.json()
        assert body["status"] == "unavailable" and body["failing"] == [part]
        assert body["parts"][part].startswith("unavailable")
        assert all(state == "ok" for name, state in body["parts"].items() if name != part)
    finally:
        server.start()
    answer, waited = healthz_until(stack, 200, [])
    assert answer.status_code == 200, (waited, answer.text)
    assert answer.json()["failing"] == []
