"""The token's EIP-712 domain, read from the chain (docs/protocol.md section 3.3): `name()`,
`version()` and `DOMAIN_SEPARATOR()` of USDC_ADDRESS, accepted only when the domain they make hashes
to that separator and `authorizationState(address,bytes32)` answers. Never written in the code:
Circle's USDC is version "2" today, and a proxy upgrade may change it.

Three outcomes, which the callers answer differently:
- a TokenDomain: the token takes transfer authorizations, under this domain;
- None, "unsupported": the node answered, and the token has no EIP-3009 (a call reverted or
  returned nothing) or its separator is not the one the domain makes. The page offers the stake by
  approval alone, and a signed stake's POST is a 409;
- TokenDomainUnavailable, "unavailable": no node answered. Only a 503 (the page may post again).

Each process keeps what it read, per (chain id, token address): a domain or "unsupported" for
DOMAIN_CACHE_SECONDS (an hour: long enough that the POST's check costs no extra round trip, short
enough that an upgraded token is followed within the hour), "unavailable" for only
UNAVAILABLE_CACHE_SECONDS, so that a flood of stakes while the nodes are down asks them once every
few seconds and an outage is forgotten as soon as it ends. One thread reads a token at a time; the
others wait for its answer (gunicorn's threaded workers: docs/architecture.md, "The web process").
A domain that could be read before is kept while a refresh finds no node (the protocol's 503 is for
a domain "not known yet")."""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from eth_abi import decode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak

from ..node.client import ChainClient, ChainUnavailable, Reverted
from .authorization import TokenDomain

DOMAIN_CACHE_SECONDS = 3600.0
UNAVAILABLE_CACHE_SECONDS = 3.0

# The calls of one read, each an eth_call of the token with no arguments but the probe's.
_NAME = keccak(text="name()")[:4]
_VERSION = keccak(text="version()")[:4]
_DOMAIN_SEPARATOR = keccak(text="DOMAIN_SEPARATOR()")[:4]
# authorizationState(address,bytes32) of the zero address and nonce: it must answer (false), as
# every EIP-3009 token does, whatever was used.
_PROBE = keccak(text="authorizationState(address,bytes32)")[:4] + bytes(64)


class TokenDomainUnavailable(Exception):
    """No node answered the token's domain read, and none was read before."""


@dataclass(frozen=True)
class _Known:
    domain: TokenDomain | None  # None: unsupported
    read_at: float


@dataclass
class _Entry:
    lock: threading.Lock
    known: _Known | None = None
    unavailable_until: float = 0.0


_entries: dict[Hashable, _Entry] = {}
_entries_lock = threading.Lock()


def token_domain(*, client: ChainClient) -> TokenDomain | None:
    """The configured token's domain (None: it takes no transfer authorizations), from this
    process's copy when fresh, else read with `client` (one JSON-RPC batch of four eth_calls).
    Raises TokenDomainUnavailable when no node answers and nothing was read before."""
    chain_id, token = settings.CHAIN_ID, settings.USDC_ADDRESS.lower()
    entry = _entry((chain_id, token))
    with entry.lock:  # one read per token at a time; the others take its answer
        now = time.monotonic()
        known = entry.known
        if known is not None and now - known.read_at < DOMAIN_CACHE_SECONDS:
            return known.domain
        if now < entry.unavailable_until:
            return _stale_or_unavailable(known)
        try:
            domain = read_token_domain(client=client, chain_id=chain_id, token=token)
        except ChainUnavailable:
            entry.unavailable_until = time.monotonic() + UNAVAILABLE_CACHE_SECONDS
            return _stale_or_unavailable(known)
        entry.known = _Known(domain=domain, read_at=time.monotonic())
        entry.unavailable_until = 0.0
        return domain


def _stale_or_unavailable(known: _Known | None) -> TokenDomain | None:
    if known is None:
        raise TokenDomainUnavailable
    return known.domain


def _entry(key: Hashable) -> _Entry:
    with _entries_lock:
        entry = _entries.get(key)
        if entry is None:
            entry = _entries[key] = _Entry(lock=threading.Lock())
        return entry


def forget_token_domains() -> None:
    """Drop every process copy (the tests: a token redeployed, a setting changed)."""
    with _entries_lock:
        _entries.clear()


def read_token_domain(*, client: ChainClient, chain_id: int, token: str) -> TokenDomain | None:
    """The token's domain as the chain shows it now, or None when it has no transfer
    authorizations. Raises ChainUnavailable when no node answers."""

    def call(data: bytes) -> list[Any]:
        return [{"to": token, "data": "0x" + data.hex()}, "latest"]

    keys = ("name", "version", "separator", "probe")
    found = client.batch(
        [
            ("eth_call", call(_NAME), "name"),
            ("eth_call", call(_VERSION), "version"),
            ("eth_call", call(_DOMAIN_SEPARATOR), "separator"),
            ("eth_call", call(_PROBE), "probe"),
        ],
        reverts_answer=keys,
    )
    answers = [found[key] for key in keys]
    if any(isinstance(answer, Reverted) or not answer for answer in answers):
        return None  # a function it does not have (or no contract at all: every call returns nothing)
    name_bytes, version_bytes, separator, probe = (bytes(answer) for answer in answers)  # type: ignore[call-overload]
    try:
        (name,) = decode(["string"], name_bytes)
        (version,) = decode(["string"], version_bytes)
        decode(["bool"], probe)
    except (DecodingError, OverflowError, ValueError):
        return None
    domain = TokenDomain(name=name, version=version, chain_id=chain_id, verifying_contract=token)
    return domain if len(separator) == 32 and domain.separator() == separator else None
