"""The public challenge answers (`/api/challenges/active`, `/resolved`, `/{id}/winners`) are the
same for every visitor, so they are built once and kept in the Django cache (Redis in production).

Invalidation is by version: every entry is stored with the token read from `VERSION_KEY`, and any
change writes a new token, so all public answers go stale at once without knowing their keys (one
per challenge for winners). The token is a fresh random value, not a counter, so an evicted version
key can never bring back an old generation of answers.

What bumps the version (after the transaction commits, so a reader cannot cache pre-commit rows
under the new token):
- `post_save` / `post_delete` of a Challenge: the admin, publish, close and resolve all save it;
- `post_save` of a Response (verification confirming, rejecting or un-confirming a claim), except
  the creation of a `pending` claim, which changes no public answer; and `post_delete`: those
  receivers are in responses/signals.py, since challenges does not import responses;
- `invalidate_public_challenge_cache()`, which code that writes with `QuerySet.update()` (no signals
  fire) MUST call: challenges/services.py's challenge_stake_moved moves `staked_sum`/`response_count` that way, and so
  would any admin bulk action.
`PUBLIC_CACHE_SECONDS` bounds the staleness of any write path that forgets to call it.
"""

import logging
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import get_random_string

from config.conditional import conditional_json
from config.renderers import NullableJSONRenderer

from .models import Challenge

logger = logging.getLogger(__name__)

VERSION_KEY = "challenges:public:version"
PUBLIC_CACHE_SECONDS = 60


def _new_version() -> str:
    return get_random_string(12)


def public_json(name: str, build: Callable[[], Any], request: HttpRequest | None = None) -> HttpResponse:
    """The public answer `name` as JSON, from the cache when it is current, else built by `build()`
    (which may raise, e.g. a 404: nothing is cached then) and stored.

    One cache round trip per hit: the entry and the version token are read together, and an entry
    counts only if it was stored under the current token. The rendered bytes are cached, so a hit
    costs neither serialisation nor rendering. A reader that built from rows older than a bump
    stores them under the old token, where nobody reads them.

    With `request`, the answer carries an ETag and a matching If-None-Match gets a bodiless 304
    (config/conditional.py): the page re-reads the active challenge every ~2 s while a claim is
    pending, and most of those reads change nothing."""
    key = f"challenges:public:{name}"
    try:
        found = cache.get_many([VERSION_KEY, key])
        version = found.get(VERSION_KEY)
        entry = found.get(key)
        if version is None:
            # add(), not set(): first readers agree on one token instead of overwriting each other.
            cache.add(VERSION_KEY, _new_version(), timeout=None)
            version = cache.get(VERSION_KEY)
    except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: answer from the database
        logger.warning("public cache unavailable (%s): %s built uncached", type(exc).__name__, name)
        return _answer(request, NullableJSONRenderer().render(build()))
    if entry is not None and entry[0] == version:
        body = entry[1]
    else:
        body = NullableJSONRenderer().render(build())
        try:
            cache.set(key, (version, body), timeout=PUBLIC_CACHE_SECONDS)
        except Exception as exc:  # noqa: BLE001
            logger.warning("public cache unavailable (%s): %s not stored", type(exc).__name__, name)
    return _answer(request, body)


def _answer(request: HttpRequest | None, body: bytes) -> HttpResponse:
    if request is None:
        return HttpResponse(body, content_type="application/json")
    return conditional_json(request, body)


def _bump_version() -> None:
    try:
        cache.set(VERSION_KEY, _new_version(), timeout=None)
    except Exception as exc:  # noqa: BLE001 - the write is committed; entries expire within PUBLIC_CACHE_SECONDS
        logger.warning("public cache unavailable (%s): version not bumped", type(exc).__name__)


def invalidate_public_challenge_cache() -> None:
    """Make every cached public challenge answer stale once the current transaction commits
    (at once outside a transaction). Safe to call any number of times."""
    transaction.on_commit(_bump_version)


@receiver(post_save, sender=Challenge, dispatch_uid="challenges.cache.challenge_saved")
@receiver(post_delete, sender=Challenge, dispatch_uid="challenges.cache.challenge_deleted")
def _challenge_changed(sender, **kwargs) -> None:
    invalidate_public_challenge_cache()
