"""The public challenge answers (`/api/challenges/active`, `/resolved`, `/{id}/winners`) are the
same for every visitor, so they are built once and kept in the Django cache (Redis in production).

Invalidation is by version: every entry is stored with the token read from `VERSION_KEY`, and any
change writes a new token, so all public answers go stale at once without knowing their keys (one
per challenge for winners). The token is a fresh random value, not a counter, so an evicted version
key can never bring back an old generation of answers.

What bumps the version (after the transaction commits, so a reader cannot cache pre-commit rows
under the new token):
- `post_save` / `post_delete` of a Challenge: the admin, publish, close and resolve all save it;
  and of its ChallengeAnchor; the anchor's services move it with `update()` and call
  `invalidate_public_challenge_cache()` when it is confirmed (the active answer then shows it);
- `post_save` / `post_delete` of a Payout (the winners answer lists the payouts: staff recording a
  transaction saves it; chain/payouts.py's verdicts and payouts_verify_again update and call
  `invalidate_public_challenge_cache()`);
- `post_save` of a Response (verification confirming, rejecting or un-confirming a claim), except
  the creation of a `pending` claim, which changes no public answer; and `post_delete`: those
  receivers are in responses/signals.py, since challenges does not import responses;
- `invalidate_public_challenge_cache()`, which code that writes with `QuerySet.update()` (no signals
  fire) MUST call: challenges/services.py's challenge_stake_moved moves `staked_sum`/`response_count` that way, and so
  would any admin bulk action.
`PUBLIC_CACHE_SECONDS` bounds the staleness of any write path that forgets to call it.

With Redis, each process also keeps the rendered answers in memory (challenges/public_copy.py): a
bump is published on a channel every process subscribes to, and a process serves its copy only while
that subscription is provably live, so an answer is never older than the change that made it stale
by more than the propagation of one Redis message.
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

from .models import Challenge, ChallengeAnchor, Payout
from .public_copy import copy_for_process, publish_bump

logger = logging.getLogger(__name__)

VERSION_KEY = "challenges:public:version"
PUBLIC_CACHE_SECONDS = 60
# For browsers as `no-cache` was (store, revalidate with If-None-Match every time, 304 on a match);
# a shared cache (CDN) may answer from its copy for 1 s (docs/protocol.md, "Caching").
PUBLIC_CACHE_CONTROL = "public, max-age=0, must-revalidate, s-maxage=1"


def _new_version() -> str:
    return get_random_string(12)


def public_json(name: str, build: Callable[[], Any], request: HttpRequest | None = None) -> HttpResponse:
    """The public answer `name` as JSON, from the cache when it is current, else built by `build()`
    (which may raise, e.g. a 404: nothing is cached then) and stored.

    With Redis, first the process's own copy (challenges/public_copy.py): no I/O at all while its
    subscription to the version bumps is live. Otherwise one cache round trip per hit: the entry and
    the version token are read together, and an entry counts only if it was stored under the current
    token (what was read is then kept in the process's copy, unless a bump came in between). The
    rendered bytes are cached, so a hit costs neither serialisation nor rendering. A reader that built
    from rows older than a bump stores them under the old token, where nobody reads them.

    With `request`, the answer carries an ETag and a matching If-None-Match gets a bodiless 304
    (config/conditional.py): the page re-reads the active challenge every ~2 s while a claim is
    pending, and most of those reads change nothing."""
    copy = copy_for_process()
    epoch = None
    if copy is not None:
        # The process's own copy (challenges/public_copy.py): no I/O while its subscription is live.
        body, epoch = copy.get(name)
        if body is not None:
            return _answer(request, body)
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
    if epoch is not None:
        copy.put(name, body, epoch)
    return _answer(request, body)


def public_hit(name: str, request: HttpRequest) -> HttpResponse | None:
    """The answer `name` from this process's copy (as `public_json` would give it), or None when
    the copy does not hold it or is not in use. No I/O: what the views try before anything else."""
    copy = copy_for_process()
    if copy is None:
        return None
    entry, _ = copy.get_entry(name)
    if entry is None:
        return None
    return conditional_json(request, entry[0], cache_control=PUBLIC_CACHE_CONTROL, etag=entry[1])


def _answer(request: HttpRequest | None, body: bytes) -> HttpResponse:
    if request is None:
        return HttpResponse(body, content_type="application/json")
    return conditional_json(request, body, cache_control=PUBLIC_CACHE_CONTROL)


def _bump_version() -> None:
    copy = copy_for_process()
    try:
        # With Redis: the new token and its message on the channel every process's copy listens to,
        # in one MULTI (challenges/public_copy.py).
        publish_bump(_new_version())
    except Exception as exc:  # noqa: BLE001 - the write is committed; entries expire within PUBLIC_CACHE_SECONDS
        logger.warning("public cache unavailable (%s): version not bumped", type(exc).__name__)
    finally:
        if copy is not None:
            copy.drop()  # this process reads its own write without waiting for the message


def invalidate_public_challenge_cache() -> None:
    """Make every cached public challenge answer stale once the current transaction commits
    (at once outside a transaction). Safe to call any number of times."""
    transaction.on_commit(_bump_version)


@receiver(post_save, sender=Challenge, dispatch_uid="challenges.cache.challenge_saved")
@receiver(post_delete, sender=Challenge, dispatch_uid="challenges.cache.challenge_deleted")
@receiver(post_save, sender=ChallengeAnchor, dispatch_uid="challenges.cache.anchor_saved")
@receiver(post_delete, sender=ChallengeAnchor, dispatch_uid="challenges.cache.anchor_deleted")
@receiver(post_save, sender=Payout, dispatch_uid="challenges.cache.payout_saved")
@receiver(post_delete, sender=Payout, dispatch_uid="challenges.cache.payout_deleted")
def _challenge_changed(sender, **kwargs) -> None:
    invalidate_public_challenge_cache()
