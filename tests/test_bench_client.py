"""The parts of the POST benchmark (`make bench`, bench/post.py) that must hold for its figures to mean
anything, each in a few seconds: the delaying JSON-RPC proxy (devtools/rpc_delay.py) adds its delay to
every request, once per HTTP request and side by side, and is stopped by its PID; the benchmarks'
client (bench/client.py) releases requests at their scheduled instants whatever the server answers,
and counts latency from those instants; the server it measures is the Procfile's own `web` line,
bound to loopback."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench import client
from bench.common import anvil
from devtools import procfile
from devtools.rpc_delay import delaying_proxy


def rpc(url: str, payload: object) -> tuple[float, object]:
    """Seconds to the answer, and the answer."""
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=30) as answer:
        body = json.loads(answer.read())
    return time.monotonic() - started, body


CHAIN_ID = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}


@pytest.mark.integration
def test_the_proxy_adds_its_delay_to_each_request_side_by_side_and_stops_by_its_pid():
    with anvil() as (node, _), delaying_proxy(node, delay_ms=200) as proxy:
        _, direct = rpc(node, CHAIN_ID)
        seconds, proxied = rpc(proxy.url, CHAIN_ID)
        assert proxied == direct and seconds >= 0.2

        # A batch is one HTTP request: one delay, not one per call (5 calls would take 1 s).
        seconds, batch = rpc(proxy.url, [{**CHAIN_ID, "id": n} for n in range(5)])
        assert [item["result"] for item in batch] == [direct["result"]] * 5
        assert 0.2 <= seconds < 1.0

        # Requests in flight together wait side by side, as a far provider's do: ten take about
        # one delay, not ten (a proxy that serialised them would cap the benchmark at 5 a second).
        durations: list[float] = []
        threads = [threading.Thread(target=lambda: durations.append(rpc(proxy.url, CHAIN_ID)[0])) for _ in range(10)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(durations) == 10 and min(durations) >= 0.2
        assert time.monotonic() - started < 1.0

        proxy.set_delay(0)
        assert proxy.stats() == {"requests": 12, "delayMs": 0.0}
        pid = proxy.pid
    with pytest.raises(OSError):  # stopped by its PID on the way out: nothing listens any more
        rpc(proxy.url, CHAIN_ID)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@contextmanager
def slow_site(post_seconds: float) -> Iterator[tuple[str, list[str]]]:
    """A loopback server that answers a POST 201 after `post_seconds`, one at a time (as a server with
    a single worker would), and a read at once; yields its URL and the POSTs' commitments in the order
    it received them."""
    received: list[str] = []
    one_at_a_time = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with one_at_a_time:
                received.append(body["commitment"])
                time.sleep(post_seconds)
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_client_releases_on_schedule_and_counts_latency_from_it():
    """Ten POSTs at 20 a second against a server that takes 0.1 s per POST, one at a time: the release
    does not wait for answers (all ten are sent within the half second of the schedule), so the
    server's queue shows as latency (the last waits about 0.55 s) and the rate it sustained is its own
    (about 10 a second), not the offered 20; the reads before the burst are told apart from those
    during it."""
    posts = [
        client.Request("POST", "/api/responses", f"{n:064x}", f"10.0.0.{n + 1}", {"commitment": f"{n:064x}"})
        for n in range(10)
    ]
    with slow_site(0.1) as (base, received):
        site = client.Site(base=base, reads=["/a", "/b"])
        measured = client.burst(site, posts, rate=20, read_rate=20, lead_seconds=0.5)

    assert sorted(received) == sorted(p.what for p in posts)
    answered = client.figures(measured.answers)
    assert answered["count"] == 10 and answered["statuses"] == {"201": 10}
    assert answered["p50"] is not None and answered["max"] is not None
    # POST k, released at k/20 s, is answered at (k + 1) x 0.1 s: the last waited 0.55 s, where a
    # client that sent each only after the last answer would have measured 0.1 s every time.
    assert answered["max"] >= 0.5
    assert answered["perSecond"] is not None and 5 <= answered["perSecond"] <= 12
    released = sorted(a.scheduled for a in measured.answers)
    assert released[-1] - released[0] == pytest.approx(0.45, abs=0.01)  # 9 intervals of 1/20 s
    alone = [a for a in measured.reads if a.scheduled < measured.burst_start]
    assert 8 <= len(alone) <= 11 and all(a.status == 200 for a in measured.reads)


def test_the_benchmark_runs_the_procfiles_web_line_on_loopback_only(tmp_path):
    web = procfile.procfile_command("web")
    loopback = procfile.loopback_web_command()
    assert "--bind 0.0.0.0:" in web and "0.0.0.0" not in loopback
    assert loopback == web.replace("--bind 0.0.0.0:", "--bind 127.0.0.1:")

    other = tmp_path / "Procfile"
    other.write_text("web: gunicorn app --bind 127.0.0.1:8000 --bind 0.0.0.0:9000\n")
    with pytest.raises(ValueError):  # two binds: the benchmark will not guess which one is public
        procfile.loopback_web_command(other)


def test_a_server_keeping_pace_far_away_reads_the_offered_rate():
    """300 requests offered at 100 a second, each answered 200 ms after its release: the pace of the
    answers is 100 a second (the latency is not charged to the rate); one falling behind, each 10 ms
    later than the one before, reads slower."""
    kept = [client.Answer(scheduled=k / 100, done=k / 100 + 0.2, status=201, what="") for k in range(300)]
    assert client.figures(kept)["perSecond"] == pytest.approx(100.0)
    behind = [client.Answer(scheduled=k / 100, done=k / 50 + 0.2, status=201, what="") for k in range(300)]
    assert client.figures(behind)["perSecond"] == pytest.approx(50.0)
