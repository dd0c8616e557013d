"""Faults under the deployed shape (tests/reliability/stack.py): gunicorn with the production
settings, a Celery worker and beat (the follower, the relayer and its watcher), a private PostgreSQL
cluster, a private redis-server and anvil with the pot, all on free loopback ports and stopped by
their PIDs. Each test breaks one part for real (a process stopped, a server restarted, a node that is
down), posts signed stakes through the API like the page does, and checks the outcome in the
database and on the chain: every stake in the pot exactly once, none lost, none sent twice.

Related tests elsewhere (not repeated here): chain/tests/pot/test_follow.py (nodes that hang or answer
errors before the working one: the follower fails over, and reads nothing as "gone" when none answers)
and chain/tests/relayer/test_send.py (two senders at a barrier share one nonce sequence)."""

from __future__ import annotations

import socket
import time
from contextlib import ExitStack

import pytest
import requests

from devtools import processes
from devtools.loopback import SilentServer

from .stack import Stack

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


def post_all(stack: Stack, stakes, *, allowed=(201,), again: bool = True) -> dict[str, int]:
    """Each stake's POST status, by commitment; each must be one of `allowed`. A 503 (the token's
    domain not known and no node answered: "may pass") is posted again after a second, as the page
    does, unless `again` is off."""
    codes = {}
    for signed in stakes:
        for _ in range(10):
            answer = stack.post(signed)
            if answer.status_code != 503 or not again:
                break
            time.sleep(1)
        assert answer.status_code in allowed, (answer.status_code, answer.text[:500])
        codes[signed.commitment] = answer.status_code
    return codes


def assert_in_pot_once(stack: Stack, stakes, before) -> None:
    """Every stake in the pot once, confirmed, the site's pot and the contract's moved by exactly them."""
    stack.wait_in_pot(stakes)
    units, count = stack.pot_state()
    assert units - before[0] == sum(int(s.stake * 10**6) for s in stakes)
    assert count - before[1] == len(stakes)
    chain_count, chain_pot = stack.on_chain()
    assert (chain_count, chain_pot) == (count, units), "the site shows the pot's own count and sum"


# --- The RPC node --------------------------------------------------------------------------------


def test_rpc_node_unreachable_then_back_stakes_wait_and_reach_the_pot(stack):
    """The node goes away while stakes arrive: a web process that knows the token's domain stores
    each stake (its simulation finds no node: the relayer checks again before it spends gas); one
    that has not read it yet answers 503, and the page posts again. The relayer's sends wait; once
    the node is back every stake reaches the pot once."""
    warm = [stack.sign("1")]
    post_all(stack, warm)  # a web process has read the domain
    stack.wait_in_pot(warm)
    before = stack.pot_state()
    stakes = [stack.sign("1.5"), stack.sign("2", player=1)]
    stack.anvil.stop()
    try:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", stack.anvil.port)) != 0, "the node still answers"
        codes = post_all(stack, stakes, allowed=(201, 503), again=False)
        # The relayer tries, finds no node, and keeps the stakes queued (its watcher's sweep queues it again).
        deadline = time.monotonic() + 30
        while "no RPC node answered" not in stack.tail(20000):
            assert time.monotonic() < deadline, stack.tail()
            time.sleep(0.2)
        assert set(stack.relay_statuses(stakes).values()) <= {"queued"}
    finally:
        stack.anvil.start()  # the same chain (state dumped on SIGTERM, loaded on start)
    post_all(stack, [s for s in stakes if codes[s.commitment] == 503])  # the page posts again
    assert_in_pot_once(stack, stakes, before)
    FAULTS_SURVIVED.append("RPC node unreachable, then back")


# --- PostgreSQL --------------------------------------------------------------------------------


def test_postgres_restarted_under_a_running_worker(stack):
    """PostgreSQL is stopped and started again under the worker while its beat follows the pot and
    its relayer sends: the worker stays up, and the stakes posted before and after reach the pot once."""
    before = stack.pot_state()
    stakes = [stack.sign("5"), stack.sign("6", player=1)]
    post_all(stack, stakes)
    worker = stack.workers["main"]
    log = stack.workdir / "worker-main.log"
    seen = len(log.read_text())
    stack.pg.stop()  # -m fast: the worker's connection is cut
    time.sleep(3)  # the follower's rounds and the relayer's watch fail against the stopped server meanwhile
    stack.pg.start()
    assert worker.poll() is None, stack.tail()
    # The worker's tasks really hit the stopped database.
    assert "OperationalError" in log.read_text()[seen:], stack.tail()
    assert_in_pot_once(stack, stakes, before)
    assert worker.poll() is None  # the same worker process did it
    # And the restarted database serves new stakes as before.
    later = [stack.sign("7", player=2)]
    before = stack.pot_state()
    post_all(stack, later)
    assert_in_pot_once(stack, later, before)
    FAULTS_SURVIVED.append("PostgreSQL restarted under a running worker")


# --- Redis (cache and broker) ----------------------------------------------------------------


def test_redis_stopped_while_stakes_arrive(stack):
    """Redis is the cache (the stake throttle, the public answers) and the broker. With it stopped,
    POSTs still answer 201 and store the stake, and the active challenge still loads; once it is back
    (empty: the sender's messages are gone), the relayer's watcher on beat queues the sender again for
    the calls left queued, and every stake reaches the pot once."""
    before = stack.pot_state()
    stakes = [stack.sign("1"), stack.sign("1.25", player=1), stack.sign("8", player=2)]
    stack.redis.stop()
    try:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", stack.redis.port)) != 0, "redis still answers"
        started = time.monotonic()
        post_all(stack, stakes)
        took = time.monotonic() - started
        assert set(stack.relay_statuses(stakes).values()) == {"queued"}
        # The page's reads still answer, from the database (the public cache is skipped).
        active = requests.get(stack.url + "/api/challenges/active", headers={"X-Forwarded-Proto": "https"}, timeout=30)
        assert active.status_code == 200 and active.json()["id"] == stack.challenge_id, active.text[:300]
    finally:
        stack.redis.start()
    print(f"\nredis down: {len(stakes)} POSTs answered 201 in {took:.1f} s")
    assert_in_pot_once(stack, stakes, before)
    FAULTS_SURVIVED.append("Redis stopped while stakes arrive")


def test_a_redis_that_hangs_does_not_hang_the_stakes(stack):
    """Redis accepts connections but never answers. Every Redis socket has a timeout (settings), so
    each POST still answers 201 well within gunicorn's 30 s worker timeout and stores the stake; once
    Redis answers again the relayer's watcher queues the sender for them and they reach the pot."""
    before = stack.pot_state()
    stakes = [stack.sign("1.5"), stack.sign("2", player=1)]
    stack.redis.stop()
    silent = SilentServer(stack.redis.port)
    try:
        took = []
        for signed in stakes:
            started = time.monotonic()
            post_all(stack, [signed])
            took.append(time.monotonic() - started)
        assert set(stack.relay_statuses(stakes).values()) == {"queued"}
        assert max(took) < 20, took
    finally:
        silent.close()
        stack.redis.start()
    print(f"\nredis hung: POSTs answered 201 in {', '.join(f'{t:.1f}' for t in took)} s")
    assert_in_pot_once(stack, stakes, before)
    FAULTS_SURVIVED.append("Redis hung (accepts, never answers) while stakes arrive")


# --- Two workers -----------------------------------------------------------------------------


def test_two_workers_sending_the_same_calls_at_once_send_each_stake_once(stack):
    """A second worker process; the sender queued three times for every stake (the POST's own and two
    more, as the watcher's sweep would), so both workers' senders run over the same queue. The
    relayer's account row is the lock: each stake goes out once, under consecutive nonces."""
    stack.worker("second")
    try:
        before = stack.pot_state()
        nonces_before = stack.sql("SELECT count(*) FROM chain_relaytransaction")[0][0]
        stakes = [stack.sign(str(n), player=n % 4) for n in range(1, 7)]
        post_all(stack, stakes)
        for _ in stakes:
            stack.send_relay()
            stack.send_relay()
        assert_in_pot_once(stack, stakes, before)
        rows = stack.sql(
            "SELECT t.nonce, c.key FROM chain_relaytransaction t JOIN chain_potcall c ON c.id = t.call_id "
            "WHERE c.kind = 'stake' ORDER BY t.nonce"
        )[nonces_before:]
        keys = [key for _, key in rows]
        assert len(keys) == len(set(keys)) == len(stakes), rows  # one transaction per stake
        nonces = [nonce for nonce, _ in rows]
        assert nonces == list(range(nonces[0], nonces[0] + len(nonces))), nonces
        logs = {name: (stack.workdir / f"worker-{name}.log").read_text() for name in ("main", "second")}
        for name, text in logs.items():
            assert "chain.relay_send" in text and "succeeded" in text, f"worker {name} ran no sender"
    finally:
        processes.stop(stack.workers.pop("second"))
    FAULTS_SURVIVED.append("two workers sending the same calls at once")


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
