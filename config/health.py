"""GET /healthz: 200 when the database, the broker and the chain answer, else 503 naming the part.

Anyone may probe it, as often as they like. Each part's answer is therefore shared by every probe
this process serves for HEALTHZ_CACHE_SECONDS (default 5): a flood of probes costs one database
connection, one broker connection and one RPC call per web process per period, not one of each per
probe, and a part that breaks (or recovers) is reported at most that long after. A failure is shared
like a success, so a node that times out is not waited on by every probe. While one probe runs a
part's check the others wait for its answer rather than run it too (no stampede as a period ends).
The database is shared like the others: without a persistent connection (CONN_MAX_AGE 0) each
check opens a PostgreSQL connection, the dearest thing a probe did and one with a hard cap.

The relayer (docs/protocol.md section 3) is not a part: a relayer short of ETH, switched off or
without a key leaves the site serving (players stake by approval, or send their authorization
themselves), and a 503 here would have the platform's router or a load balancer take away a site
that still works. Its balance alarm is an error in the logs and a banner in the admin (Chain ->
Relayer), where the money is seen to."""

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Hashable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

PROBE_TIMEOUT_SECONDS = 2.0


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _broker() -> None:
    from config.celery_app import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=PROBE_TIMEOUT_SECONDS)


def _chain() -> None:
    """Any one RPC URL answering eth_chainId with the configured chain is enough."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}).encode()
    last_error: Exception | None = None
    for url in settings.CHAIN_RPC_URLS:
        request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})  # noqa: S310 - http(s) from settings
        try:
            with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_SECONDS) as answer:  # noqa: S310
                result = json.loads(answer.read())["result"]
            if int(result, 16) != settings.CHAIN_ID:
                raise RuntimeError(f"chain id {int(result, 16)} is not {settings.CHAIN_ID}")
            return
        except Exception as exc:  # noqa: BLE001 - every failure is a reason to try the next URL
            last_error = exc
    raise RuntimeError(str(last_error) if last_error else "no RPC URL configured")


CHECKS: dict[str, Callable[[], None]] = {"database": _database, "broker": _broker, "chain": _chain}


def _configuration(name: str) -> Hashable:
    """What a part's answer is about: an answer about one node, broker or database is no answer about
    another (the settings a test overrides, or a process whose settings were reloaded)."""
    if name == "chain":
        return (tuple(settings.CHAIN_RPC_URLS), settings.CHAIN_ID)
    if name == "broker":
        return settings.CELERY_BROKER_URL
    database = settings.DATABASES["default"]
    return (database.get("NAME"), database.get("HOST"), database.get("PORT"))


# name -> (configuration, the time.monotonic() it was checked at, its state); one lock per part.
_answers: dict[str, tuple[Hashable, float, str]] = {}
_locks = {name: threading.Lock() for name in CHECKS}


def _shared(name: str, period: float) -> str | None:
    answer = _answers.get(name)
    if answer is None or answer[0] != _configuration(name) or time.monotonic() - answer[1] >= period:
        return None
    return answer[2]


def part_state(name: str) -> str:
    """The part's state, "ok" or "unavailable: <error>", checked at most once a period per process."""
    period = float(settings.HEALTHZ_CACHE_SECONDS)
    state = _shared(name, period)
    if state is not None:
        return state
    with _locks[name]:
        state = _shared(name, period)  # another probe may have checked while this one waited
        if state is not None:
            return state
        try:
            CHECKS[name]()
            state = "ok"
        except Exception as exc:  # noqa: BLE001 - any failure is the part being unavailable
            state = f"unavailable: {type(exc).__name__}"
        _answers[name] = (_configuration(name), time.monotonic(), state)
        return state


def healthz(request: HttpRequest) -> JsonResponse:
    parts = {name: part_state(name) for name in CHECKS}
    healthy = all(state == "ok" for state in parts.values())
    failing = [name for name, state in parts.items() if state != "ok"]
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "failing": failing, "parts": parts},
        status=200 if healthy else 503,
    )
