"""`make run` says "devchain: ready" only once the page answers (scripts/devchain.py, announce_ready).
The web server here is a real HTTP server on a free loopback port that, like runserver starting up,
refuses connections for a while, then answers 503 once, then 200."""

import importlib.util
import io
import subprocess
import sys
import threading
import time
from contextlib import redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from devtools import processes

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "devchain.py"
_spec = importlib.util.spec_from_file_location("devchain", SCRIPT)
devchain = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(devchain)

STARTUP_SECONDS = 1.5  # how long the slow web server refuses connections


class Events(io.StringIO):
    """What happened, in order: the server's answers and the lines the script printed."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.seen: list[str] = []

    def add(self, event: str) -> None:
        with self.lock:
            self.seen.append(event)

    def write(self, text: str) -> int:
        if text.strip():
            self.add(text.strip())
        return len(text)


def slow_web_server(port: int, events: Events, *, answers: list[int]) -> tuple[threading.Timer, list]:
    """Starts listening on `port` after STARTUP_SECONDS; answers `answers` in turn, then repeats the
    last. Returns the timer and a list that holds the server once it listens (for the caller to stop)."""
    started: list[ThreadingHTTPServer] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = answers.pop(0) if len(answers) > 1 else answers[0]
            events.add(f"server answered {status}")  # before the answer leaves, so it comes first
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    def listen() -> None:
        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        started.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()

    timer = threading.Timer(STARTUP_SECONDS, listen)
    timer.start()
    return timer, started


def stop_server(timer: threading.Timer, started: list) -> None:
    timer.cancel()
    timer.join()
    for server in started:
        server.shutdown()
        server.server_close()


def announce_against_slow_server(*, answers: list[int], timeout: float) -> tuple[int, Events, float]:
    """Run the ready announcement against a web server that starts late and answers `answers`:
    the port, what was seen and printed, and how long the wait took."""
    port = processes.free_port()
    events = Events()
    timer, started = slow_web_server(port, events, answers=answers)
    try:
        begun = time.monotonic()
        with redirect_stdout(events):
            devchain.announce_ready(f"http://127.0.0.1:{port}", timeout=timeout)
        waited = time.monotonic() - begun
    finally:
        stop_server(timer, started)
    return port, events, waited


def test_ready_is_printed_only_after_the_page_answers_200():
    port, events, waited = announce_against_slow_server(answers=[503, 200], timeout=30)
    ready = f"devchain: ready. Play at http://127.0.0.1:{port}/ (Ctrl-C stops everything)"
    assert events.seen == ["server answered 503", "server answered 200", ready]
    assert waited >= STARTUP_SECONDS


def test_a_page_that_never_answers_200_ends_the_wait_without_saying_ready():
    port, events, waited = announce_against_slow_server(answers=[500], timeout=3)
    printed = [event for event in events.seen if event.startswith("devchain:")]
    assert printed == [f"devchain: http://127.0.0.1:{port}/ did not answer within 3 s; the web process's lines say why"]
    assert "server answered 500" in events.seen  # it did answer, just never 200
    assert 3 <= waited < 3 + 10


def test_the_wait_ends_at_once_when_the_node_exits():
    """anvil gone: serve reports that next, so the wait says nothing of the web server."""
    node = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        node.wait(timeout=30)
        events = Events()
        begun = time.monotonic()
        with redirect_stdout(events):
            devchain.announce_ready(f"http://127.0.0.1:{processes.free_port()}", timeout=30, process=node)
        assert time.monotonic() - begun < 5
        assert events.seen == []
    finally:
        processes.stop(node)
