"""Who the client is, behind a known number of proxies (TRUSTED_PROXY_HOPS).

Each proxy appends the address it received the connection from to X-Forwarded-For, so with N
trusted hops (1 behind a Heroku-style router) the client is the Nth address from the right: the one
the outermost trusted proxy saw. Everything to the left of it was written by the client and is never
read, so a forged header cannot pick anyone's bucket. With 0 hops (the default, and `make run`) the
header is ignored and REMOTE_ADDR is the client. A header with fewer addresses than hops (a request
that did not pass every proxy) falls back to REMOTE_ADDR, the nearest peer, which no client writes.

One function for the claim throttle (responses/views.py ClaimThrottle), the admin lockout
(django-axes, AXES_CLIENT_IP_CALLABLE) and the request log (config/request_log.py)."""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    hops = int(getattr(settings, "TRUSTED_PROXY_HOPS", 0))
    if hops <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if len(forwarded) < hops:
        return remote
    return _address(forwarded[-hops]) or remote
