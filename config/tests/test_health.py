"""/healthz under a flood of anonymous probes: the chain, broker and database checks are shared by
every probe this process serves for HEALTHZ_CACHE_SECONDS, so N probes cost one call to each part,
and a part that breaks is still reported (503 naming it) once that time has passed.

The chain is a loopback JSON-RPC endpoint of the test's own that counts the requests reaching it
and answers eth_chainId with the chain id it is told (a wrong id is how it "breaks"); the broker is
the test settings' in-memory transport, its connections counted by wrapping Celery's own call (the
connection is still made); the database is the test database, its queries captured."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from config import health
from config.celery_app import app as celery_app
from devtools.concurrency import at_once

PROBES = 40


@dataclass
class Node:
    url: str
    chain_id: int
    requests: list[str] = field(default_factory=list)


@contextmanager
def counting_node(chain_id: int) -> Iterator[Node]:
    node = Node(url="", chain_id=chain_id)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            node.requests.append(call["method"])
            body = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": hex(node.chain_id)}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    node.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield node
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _no_shared_answers():
    """Each test starts with no answer shared yet (the broker's and the database's configuration is
    the same in every test)."""
    health._answers.clear()
    yield
    health._answers.clear()


@pytest.fixture
def node(settings):
    with counting_node(settings.CHAIN_ID) as node:
        settings.CHAIN_RPC_URLS = [node.url]  # a URL of its own: no answer cached for it yet
        yield node


@pytest.fixture
def broker_connections(monkeypatch):
    opened: list[int] = []
    real = celery_app.connection_for_write

    def counted(*args, **kwargs):
        opened.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(celery_app, "connection_for_write", counted)
    return opened


def probe(client) -> tuple[int, dict]:
    answer = client.get("/healthz")
    return answer.status_code, answer.json()


@pytest.mark.django_db
def test_a_flood_of_probes_calls_each_part_once(client, settings, node, broker_connections):
    settings.HEALTHZ_CACHE_SECONDS = 30  # longer than the test: every probe after the first is shared
    with CaptureQueriesContext(connection) as queries:
        answers = [probe(client) for _ in range(PROBES)]
    assert {status for status, _ in answers} == {200}
    assert answers[-1][1] == {"status": "ok", "failing": [], "parts": {"database": "ok", "broker": "ok", "chain": "ok"}}
    assert node.requests == ["eth_chainId"]
    assert len(broker_connections) == 1
    assert [q["sql"] for q in queries.captured_queries if q["sql"] == "SELECT 1"] == ["SELECT 1"]


@pytest.mark.django_db(transaction=True)
def test_probes_arriving_together_wait_for_one_check(settings, node, broker_connections):
    """Threads released together (a web process serving several requests at once): one runs each
    check, the others wait for its answer instead of calling the node too."""
    settings.HEALTHZ_CACHE_SECONDS = 30
    request = RequestFactory().get("/healthz")
    statuses = at_once([lambda: health.healthz(request).status_code] * 8)
    assert statuses == [200] * 8
    assert node.requests == ["eth_chainId"]
    assert len(broker_connections) == 1


@pytest.mark.django_db
def test_a_part_that_breaks_is_reported_once_the_shared_answer_expires(client, settings, node):
    settings.HEALTHZ_CACHE_SECONDS = 0.5
    assert probe(client)[0] == 200
    node.chain_id = settings.CHAIN_ID + 1  # the node now serves another chain
    # Within the period the probes share the last answer...
    assert probe(client)[0] == 200
    assert node.requests == ["eth_chainId"]
    # ...and once it has passed, the next probe checks again and names the part.
    time.sleep(0.6)
    status, body = probe(client)
    assert status == 503
    assert body["failing"] == ["chain"] and body["parts"]["chain"] == "unavailable: RuntimeError"
    assert body["parts"]["database"] == body["parts"]["broker"] == "ok"
    assert node.requests == ["eth_chainId", "eth_chainId"]
    # A failure is shared the same way (a node that times out is not asked by every probe), and the
    # recovery is seen after the same period.
    node.chain_id = settings.CHAIN_ID
    assert probe(client)[0] == 503
    time.sleep(0.6)
    assert probe(client)[0] == 200
    assert len(node.requests) == 3


def test_the_default_period_is_five_seconds(settings):
    assert settings.HEALTHZ_CACHE_SECONDS == 5
