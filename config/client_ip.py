"""Who the client is, behind a known number of proxies (TRUSTED_PROXY_HOPS).

Each proxy appends the address it received the connection from to X-Forwarded-For, so with N
trusted hops (1 behind a Heroku-style router) the client is the Nth address from the right: the one
the outermost trusted proxy saw. Everything to the left of it was written by the client and is never
read, so a forged header cannot pick anyone's bucket. With 0 hops (the default, and `make run`) the
header is ignored and REMOTE_ADDR is the client. A header with fewer addresses than hops (a request
that did not pass every proxy) falls back to REMOTE_ADDR, the nearest peer, which no client writes.

`client_ip` is the address, for the request log (config/request_log.py): it names the connection.
`client_key` is the client as a counter sees it, for the stake throttle (responses/views.py
StakeThrottle) and the admin lockout (django-axes, AXES_CLIENT_IP_CALLABLE): an IPv4 address as
it is, an IPv6 address as its /64 (one subscriber's network: a home or a server gets a whole /64 and
may use any of its 2^64 addresses per connection), and an IPv4-mapped IPv6 address
(`::ffff:198.51.100.7`, what a dual-stack socket shows) as its IPv4 address. The /64 is written as
its first address (`2001:db8:1:2::`), which django-axes can store as an address."""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


IPV6_CLIENT_PREFIX = 64


def client_ip(request: HttpRequest) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    hops = int(getattr(settings, "TRUSTED_PROXY_HOPS", 0))
    if hops <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if len(forwarded) < hops:
        return remote
    return _address(forwarded[-hops]) or remote


def client_key(request: HttpRequest) -> str:
    """The bucket a counter keeps for this client (see the module's docstring)."""
    text = client_ip(request)
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return text  # no address at all (a test client without REMOTE_ADDR): one bucket for all such
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False).network_address)
    return str(address)
