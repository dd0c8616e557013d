"""The benchmarks' HTTP client: requests released open-loop, each at its scheduled instant on a
connection of its own, whatever the server has answered so far, and a reader asking the public
answers at a fixed rate meanwhile. One asyncio loop in this process and a few lines of HTTP/1.1 on
its streams, so a few hundred requests in flight cost the machine little beside the server under
test.

Every latency is from the request's scheduled instant to the end of its answer: a server that falls
behind shows as latency, never as a client that quietly sent later. Each player reaches the server
through the router as its own address (X-Forwarded-For, TRUSTED_PROXY_HOPS=1 as app.json sets it), so
the throttles, CSRF and the request log run as in production."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .common import percentile

REQUEST_TIMEOUT_SECONDS = 30.0  # a platform router's cut: a request not answered by then counts as lost


@dataclass(frozen=True)
class Request:
    """One player's request: what it asks, what names it in the figures, the address it comes from."""

    method: str
    path: str
    what: str
    address: str  # X-Forwarded-For as the platform router sets it
    body: dict | None = None


@dataclass
class Answer:
    scheduled: float  # time.monotonic() of the planned release
    done: float
    status: int  # 0: no answer (connection refused or reset, or no answer within the timeout)
    what: str
    error: str = ""
    body: bytes = b""

    @property
    def seconds(self) -> float:
        return self.done - self.scheduled


@dataclass
class Site:
    base: str
    reads: Sequence[str] = ()
    # A CSRF secret of this client's own, sent as the cookie and the header, as a browser sends the
    # one the page set (Django compares the two; the server keeps no state for it).
    csrf: str = field(default_factory=lambda: secrets.token_hex(16))

    def headers(self, address: str) -> dict[str, str]:
        # Behind the router: https as seen by the router, the client as its last X-Forwarded-For hop.
        return {
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": address,
            "Cookie": f"csrftoken={self.csrf}",
            "X-CSRFToken": self.csrf,
            "Referer": self.base.replace("http://", "https://") + "/",
        }


async def _request(site: Site, request: Request, scheduled: float) -> Answer:
    """One request on a connection of its own (`Connection: close`, as each player's browser opens its
    own), read to the server's close."""
    url = urlsplit(site.base)
    data = b"" if request.body is None else json.dumps(request.body).encode()
    lines = [f"{request.method} {request.path} HTTP/1.1", f"Host: {url.netloc}", "Connection: close",
             f"Content-Length: {len(data)}"]  # fmt: skip
    if request.body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{name}: {value}" for name, value in site.headers(request.address).items()]
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + data

    async def exchange() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        try:
            writer.write(raw)
            answer = await reader.read()  # to the server's close
        finally:
            writer.close()
        status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.") else 0
        return status, answer.partition(b"\r\n\r\n")[2]

    try:
        status, body = await asyncio.wait_for(exchange(), REQUEST_TIMEOUT_SECONDS)
        error = "" if status else "no status line"
        return Answer(scheduled, time.monotonic(), status, request.what, error=error, body=body)
    except (TimeoutError, OSError, ValueError, IndexError) as exc:
        return Answer(scheduled, time.monotonic(), 0, request.what, error=type(exc).__name__)


async def _at(instant: float) -> None:
    delay = instant - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


async def _read_until(site: Site, rate: float, start: float, stop: asyncio.Event, out: list[Answer]) -> None:
    tasks = []
    n = 0
    while not stop.is_set():
        instant = start + n / rate
        await _at(instant)
        path = site.reads[n % len(site.reads)]
        read = Request("GET", path, path, f"10.200.{(n // 250) % 250}.{n % 250 + 1}")
        tasks.append(asyncio.ensure_future(_request(site, read, instant)))
        n += 1
    out.extend(await asyncio.gather(*tasks))


async def _release(site: Site, requests: Sequence[Request], rate: float, start: float) -> list[Answer]:
    tasks = []
    for n, request in enumerate(requests):
        instant = start + n / rate
        await _at(instant)
        tasks.append(asyncio.ensure_future(_request(site, request, instant)))
    return list(await asyncio.gather(*tasks))


@dataclass
class Measured:
    answers: list[Answer]
    reads: list[Answer]
    burst_start: float
    reads_start: float


def burst(site: Site, requests: Sequence[Request], *, rate: float, read_rate: float = 0.0, lead_seconds: float = 0.0,
          on_release: Callable[[], object] = lambda: None) -> Measured:  # fmt: skip
    """Reads alone for `lead_seconds` (none when `read_rate` is 0 or the site has no reads), then
    `requests` released at `rate` per second while the reads go on, until every request has its
    answer (`on_release` called at the release). Returns every answer."""

    async def run() -> Measured:
        stop = asyncio.Event()
        reads: list[Answer] = []
        reads_start = time.monotonic() + 0.05
        reading = read_rate > 0 and bool(site.reads)
        reader = asyncio.ensure_future(_read_until(site, read_rate, reads_start, stop, reads)) if reading else None
        burst_start = reads_start + (lead_seconds if reading else 0.0)
        await _at(burst_start)
        on_release()
        answers = await _release(site, requests, rate, burst_start)
        stop.set()
        if reader is not None:
            await reader
        return Measured(answers, reads, burst_start, reads_start)

    return asyncio.run(run())


def at_once(site: Site, requests: Sequence[Request], at: float) -> list[Answer]:
    """Every request released at the monotonic instant `at`, each on a connection of its own."""

    async def run() -> list[Answer]:
        await _at(at)
        return list(await asyncio.gather(*(_request(site, r, at) for r in requests)))

    return asyncio.run(run())


def few_at_a_time(site: Site, requests: Sequence[Request], *, concurrency: int) -> list[Answer]:
    """`requests` sent `concurrency` at a time (a warm-up): every answer."""

    async def run() -> list[Answer]:
        limit = asyncio.Semaphore(concurrency)

        async def one(request: Request) -> Answer:
            async with limit:
                return await _request(site, request, time.monotonic())

        return list(await asyncio.gather(*(one(r) for r in requests)))

    return asyncio.run(run())


def figures(answers: Sequence[Answer], *, start: float | None = None) -> dict:
    """Count, answers by status, answered per second and the latency percentiles, in seconds.

    The rate is the pace of the answers: the intervals between the first and the last answer over
    their span (or, given `start`, the answers from that instant to the last). Counted from the first
    release instead, the last request's latency would be charged to the rate: 300 requests offered at
    100 a second to a server that keeps pace 200 ms away would read 94 a second, never 100."""
    if not answers:
        return {"count": 0, "statuses": {}, "perSecond": None, "p50": None, "p99": None, "max": None}
    last = max(a.done for a in answers)
    if start is not None:
        first, intervals = start, len(answers)
    else:
        first, intervals = min(a.done for a in answers), len(answers) - 1
    statuses: dict[str, int] = {}
    for a in answers:
        statuses[str(a.status)] = statuses.get(str(a.status), 0) + 1
    seconds = [a.seconds for a in answers]
    return {
        "count": len(answers),
        "statuses": dict(sorted(statuses.items())),
        "perSecond": intervals / (last - first) if last > first else None,
        "p50": percentile(seconds, 50),
        "p99": percentile(seconds, 99),
        "max": max(seconds),
        "wallSeconds": last - first,
        "errors": sorted({a.error for a in answers if a.error}),
    }
