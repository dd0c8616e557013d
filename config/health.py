"""GET /healthz: 200 when the database, the broker and the chain answer, else 503 naming the part."""

import json
import urllib.request

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


CHECKS = {"database": _database, "broker": _broker, "chain": _chain}


def healthz(request: HttpRequest) -> JsonResponse:
    parts: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            check()
            parts[name] = "ok"
        except Exception as exc:  # noqa: BLE001
            parts[name] = f"unavailable: {type(exc).__name__}"
    healthy = all(state == "ok" for state in parts.values())
    failing = [name for name, state in parts.items() if state != "ok"]
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "failing": failing, "parts": parts},
        status=200 if healthy else 503,
    )
