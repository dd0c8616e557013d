"""The burst's client (bench/burst.py): claim POSTs released open-loop, each at its scheduled instant
on a connection of its own, whatever the server has answered so far, and a reader asking the public
answers at a fixed rate meanwhile. One asyncio loop in this process and a few lines of HTTP/1.1 on
its streams, so a few hundred requests in flight cost the machine little beside the server under
test.

Every latency is from the request's scheduled instant to the end of its answer: a server that falls
behind shows as latency, never as a client that quietly sent later."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

REQUEST_TIMEOUT_SECONDS = 30.0  # a platform router's cut: a claim not answered by then counts as lost


@dataclass(frozen=True)
class Player:
    """One player's claim: its body and the address the router reports it from."""

    body: dict
    address: str  # X-Forwarded-For as the platform router sets it (TRUSTED_PROXY_HOPS=1)


@dataclass
class Answer:
    scheduled: float  # time.monotonic() of the planned release
    done: float
    status: int  # 0: no answer (connection refused or reset, or no answer within the timeout)
    what: str  # the transaction hash of a claim, the path of a read
    error: str = ""
    body: bytes = b""  # the answer's body (bench/relay_burst.py reads the claims' relay status in it)

    @property
    def seconds(self) -> float:
        return self.done - self.scheduled


@dataclass
class Site:
    base: str
    csrf: str
    reads: Sequence[str]
    answers: list[Answer] = field(default_factory=list)

    def headers(self, address: str) -> dict[str, str]:
        # Behind the router: https as seen by the router, the client as its last X-Forwarded-For hop.
        return {
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": address,
            "Cookie": f"csrftoken={self.csrf}",
            "X-CSRFToken": self.csrf,
            "Referer": self.base.replace("http://", "https://") + "/",
        }


async def _request(base: str, method: str, path: str, what: str, scheduled: float, *, headers: dict[str, str],
                   body: dict | None = None) -> Answer:  # fmt: skip
    """One request on a connection of its own (`Connection: close`, as each player's browser opens its
    own), read to the server's close: a few lines of HTTP/1.1 on asyncio's streams, so the client
    costs the shared cores a fraction of what a full HTTP client does beside the server measured."""
    url = urlsplit(base)
    data = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {url.netloc}", "Connection: close", f"Content-Length: {len(data)}"]
    if body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + data

    async def exchange() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        try:
            writer.write(request)
            answer = await reader.read()  # to the server's close
        finally:
            writer.close()
        status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.") else 0
        return status, answer.partition(b"\r\n\r\n")[2]

    try:
        status, body = await asyncio.wait_for(exchange(), REQUEST_TIMEOUT_SECONDS)
        return Answer(scheduled, time.monotonic(), status, what, error="" if status else "no status line", body=body)
    except (TimeoutError, OSError, ValueError, IndexError) as exc:
        return Answer(scheduled, time.monotonic(), 0, what, error=type(exc).__name__)


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
        address = f"10.200.{(n // 250) % 250}.{n % 250 + 1}"
        tasks.append(
            asyncio.ensure_future(_request(site.base, "GET", path, path, instant, headers=site.headers(address)))
        )
        n += 1
    out.extend(await asyncio.gather(*tasks))


async def _burst(site: Site, players: Sequence[Player], rate: float, start: float) -> list[Answer]:
    tasks = []
    for n, player in enumerate(players):
        instant = start + n / rate
        await _at(instant)
        tasks.append(asyncio.ensure_future(_request(
            site.base, "POST", "/api/responses", player.body["transactionHash"], instant,
            body=player.body, headers=site.headers(player.address),
        )))  # fmt: skip
    return list(await asyncio.gather(*tasks))


@dataclass
class Measured:
    claims: list[Answer]
    reads: list[Answer]
    burst_start: float
    reads_start: float


def measure(site: Site, players: Sequence[Player], *, rate: float, read_rate: float, lead_seconds: float,
            on_burst: Callable[[], object] = lambda: None) -> Measured:  # fmt: skip
    """Reads alone for `lead_seconds`, then the burst of `players` released at `rate` per second
    while the reads go on, until every claim has its answer (`on_burst` called at its release).
    Returns every answer."""

    async def run() -> Measured:
        stop = asyncio.Event()
        reads: list[Answer] = []
        reads_start = time.monotonic() + 0.05
        reader = asyncio.ensure_future(_read_until(site, read_rate, reads_start, stop, reads))
        burst_start = reads_start + lead_seconds
        await _at(burst_start)
        on_burst()
        claims = await _burst(site, players, rate, burst_start)
        stop.set()
        await reader
        return Measured(claims, reads, burst_start, reads_start)

    return asyncio.run(run())


def post_all(site: Site, players: Sequence[Player], *, concurrency: int) -> list[Answer]:
    """`players`' claims posted `concurrency` at a time (the warm-up): every answer."""

    async def run() -> list[Answer]:
        limit = asyncio.Semaphore(concurrency)

        async def one(player: Player) -> Answer:
            async with limit:
                tx, headers = player.body["transactionHash"], site.headers(player.address)
                return await _request(site.base, "POST", "/api/responses", tx, time.monotonic(), body=player.body,
                                      headers=headers)  # fmt: skip

        return list(await asyncio.gather(*(one(p) for p in players)))

    return asyncio.run(run())


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (bench/verify.py's), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def figures(answers: Sequence[Answer], *, start: float | None = None) -> dict:
    """Count, answers by status, answered per second (from `start`, or the first scheduled instant,
    to the last answer) and the latency percentiles, in seconds."""
    if not answers:
        return {"count": 0, "statuses": {}, "perSecond": None, "p50": None, "p99": None, "max": None}
    first = start if start is not None else min(a.scheduled for a in answers)
    last = max(a.done for a in answers)
    statuses: dict[str, int] = {}
    for a in answers:
        statuses[str(a.status)] = statuses.get(str(a.status), 0) + 1
    seconds = [a.seconds for a in answers]
    return {
        "count": len(answers),
        "statuses": dict(sorted(statuses.items())),
        "perSecond": len(answers) / (last - first) if last > first else None,
        "p50": percentile(seconds, 50),
        "p99": percentile(seconds, 99),
        "max": max(seconds),
        "wallSeconds": last - first,
        "errors": sorted({a.error for a in answers if a.error}),
    }
