"""The public answers (`/api/challenges/active`, `/resolved`, `/{id}/winners`) are the same for every
visitor, so they are built once and kept in the cache (Redis in production). The interface:

- `PublicAnswerView`, the base of those views, and `public_answer(name, build, request)`, the
  read-through: the answer `name` from the cache while it is current, else built and stored;
- `public_answers_mark_stale()`, the one way to make them stale. Every service that writes something
  a public answer shows calls it, in the transaction of the write (challenges/services.py: publishing;
  the pot's projection after each round of the follower, chain/pot/projection.py; the guesses scored
  at the solution's reveal, responses/services.py; ...).

Staleness is by version: every entry is stored with the token read from `VERSION_KEY`, and a bump
writes a new token, so all public answers go stale at once without knowing their keys (one per
challenge for winners). The token is a fresh random value, not a counter, so an evicted version key
can never bring back an old generation of answers. The bump runs after the transaction commits, so
a reader cannot cache pre-commit rows under the new token. `PUBLIC_CACHE_SECONDS` bounds what a
bump that fails (Redis down) costs.

Where the entries live: with Django's RedisCache as the default cache (production, bench/), in that
Redis through redis-py (`RedisStore`), and each process also keeps the rendered answers in memory
(config/public_copy.py), dropped by a message every bump publishes. With any other cache (the test
settings' local memory, the file cache of `make run`) through Django's cache API (`CacheStore`)."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import get_random_string
from django.utils.module_loading import import_string
from rest_framework.views import APIView

from .conditional import conditional_json
from .public_copy import PublicCopy
from .renderers import NullableJSONRenderer

logger = logging.getLogger(__name__)

VERSION_KEY = "challenges:public:version"
ENTRY_PREFIX = "challenges:public:"
CHANNEL = "challenges:public:bumped"
PUBLIC_CACHE_SECONDS = 60
# For browsers as `no-cache` was (store, revalidate with If-None-Match every time, 304 on a match);
# a shared cache (CDN) may answer from its copy for 1 s (docs/protocol.md section 3.6).
PUBLIC_CACHE_CONTROL = "public, max-age=0, must-revalidate, s-maxage=1"
# Accept headers under which DRF's negotiation picks the JSON renderer without a doubt (absent:
# wrk, curl; `*/*`: fetch()); any other goes through DRF, which answers 406 when JSON is not acceptable.
_PLAIN_ACCEPT = frozenset({None, "*/*", "application/json"})


class PublicAnswerView(APIView):
    """A public, cached answer. A GET that this process's copy holds is answered before DRF's
    request wrapping and content negotiation, which cost as much CPU again as the rest of such a
    request once the Redis round trip was gone (docs/decisions.md, "The view answers a held GET
    before DRF"); the answer is the same bytes and headers DRF's path gives. Anything else (a miss,
    a 404, another method or Accept) goes through DRF, whose `get` answers with
    `public_answer(self.public_name(...), build, request)`."""

    def public_name(self, **kwargs) -> str:
        raise NotImplementedError

    def dispatch(self, request, *args, **kwargs):
        if request.method == "GET" and request.META.get("HTTP_ACCEPT") in _PLAIN_ACCEPT:
            hit = _copy_hit(self.public_name(**kwargs), request)
            if hit is not None:
                hit["Allow"] = ", ".join(self.allowed_methods)  # as DRF's finalize_response adds
                return hit
        return super().dispatch(request, *args, **kwargs)


def public_answer(name: str, build: Callable[[], Any], request: HttpRequest | None = None) -> HttpResponse:
    """The public answer `name` as JSON, from the cache when it is current, else built by `build()`
    (which may raise, e.g. a 404: nothing is cached then) and stored.

    With Redis, first the process's own copy: no I/O at all while its subscription to the bumps is
    live. Otherwise one cache round trip per hit: the entry and the version token are read together,
    and an entry counts only if it was stored under the current token (what was read is then kept in
    the process's copy, unless a bump came in between). The rendered bytes are cached, so a hit costs
    neither serialisation nor rendering. A reader that built from rows older than a bump stores them
    under the old token, where nobody reads them. When the cache is down, every answer is built.

    With `request`, the answer carries an ETag and a matching If-None-Match gets a bodiless 304
    (config/conditional.py): the page re-reads the active challenge every ~2 s while a stake is
    pending, and most of those reads change nothing."""
    store, copy = _for_process()
    epoch = None
    if copy is not None:
        body, epoch = copy.get(name)
        if body is not None:
            return _answer(request, body)
    try:
        version, body = store.read(name)
    except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: answer from the database
        logger.warning("public cache unavailable (%s): %s built uncached", type(exc).__name__, name)
        return _answer(request, NullableJSONRenderer().render(build()))
    if body is None:
        body = NullableJSONRenderer().render(build())
        try:
            store.write(name, version, body)
        except Exception as exc:  # noqa: BLE001
            logger.warning("public cache unavailable (%s): %s not stored", type(exc).__name__, name)
            return _answer(request, body)
    if copy is not None and epoch is not None:  # epoch is only set from the copy
        copy.put(name, body, epoch)
    return _answer(request, body)


def public_answers_mark_stale() -> None:
    """Make every public answer stale once the current transaction commits (at once outside a
    transaction). Safe to call any number of times."""
    transaction.on_commit(_bump_version)


def _bump_version() -> None:
    store, copy = _for_process()
    try:
        store.bump(get_random_string(12))
    except Exception as exc:  # noqa: BLE001 - the write is committed; entries expire within PUBLIC_CACHE_SECONDS
        logger.warning("public cache unavailable (%s): version not bumped", type(exc).__name__)
    finally:
        if copy is not None:
            copy.drop()  # this process reads its own write without waiting for the message


def _copy_hit(name: str, request: HttpRequest) -> HttpResponse | None:
    """The answer `name` from this process's copy (as `public_answer` would give it), or None when
    the copy does not hold it or is not in use. No I/O."""
    _, copy = _for_process()
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


class CacheStore:
    """The entries in the default cache through Django's cache API, each `(version, body)`."""

    def read(self, name: str) -> tuple[Any, bytes | None]:
        """(the current version, the body stored under it or None). Creates the version if none."""
        cache = caches["default"]
        key = ENTRY_PREFIX + name
        found = cache.get_many([VERSION_KEY, key])
        version = found.get(VERSION_KEY)
        if version is None:
            # add(), not set(): first readers agree on one token instead of overwriting each other.
            cache.add(VERSION_KEY, get_random_string(12), timeout=None)
            version = cache.get(VERSION_KEY)
        entry = found.get(key)
        return version, entry[1] if entry is not None and entry[0] == version else None

    def write(self, name: str, version: Any, body: bytes) -> None:
        caches["default"].set(ENTRY_PREFIX + name, (version, body), timeout=PUBLIC_CACHE_SECONDS)

    def bump(self, token: str) -> bool:
        """Set the version. False: nobody is told (no process keeps a copy with this cache)."""
        caches["default"].set(VERSION_KEY, token, timeout=None)
        return False


class RedisStore:
    """The entries in the default cache's Redis, through redis-py, each `version\\nbody`.

    Not through Django's cache API: a bump must set the version and publish it in one MULTI, which
    that API cannot do, and the RedisCache's own client and value format are private. So redis-py is
    configured from the same `CACHES["default"]` entry Django reads (LOCATION: one URL, or several of
    which the first takes the writes; OPTIONS: the connection pool's arguments, with `pool_class` and
    `parser_class` as Django takes them), and keys carry the cache's KEY_PREFIX and VERSION (its
    public `make_key`), as Django's own keys do."""

    def __init__(self, backend: RedisCache, config: dict) -> None:
        import redis

        location = config["LOCATION"]
        url = re.split("[;,]", location)[0] if isinstance(location, str) else location[0]
        options = dict(config.get("OPTIONS") or {})
        options.pop("serializer", None)  # the values here are bytes, never serialised
        pool_class = options.pop("pool_class", None) or redis.ConnectionPool
        pool_class = import_string(pool_class) if isinstance(pool_class, str) else pool_class
        if isinstance(options.get("parser_class"), str):
            options["parser_class"] = import_string(options["parser_class"])
        pool = pool_class.from_url(url, **options)
        self.client = redis.Redis(connection_pool=pool)
        # RESP2 for the copy's subscriber: in subscribed mode a PING is then answered ["pong", token]
        # in line with the messages (redis-py 8 speaks RESP3 by default, where messages are push frames).
        self.connect = pool_class.from_url(url, **{**options, "protocol": 2}).make_connection
        self.version_key = backend.make_key(VERSION_KEY)
        self.entry_prefix = backend.make_key(ENTRY_PREFIX)
        # Pub/sub is global to a Redis server: the channel carries the cache's key prefix and version
        # and its database number, so two deployments (or test runs) sharing one server do not drop
        # each other's copies.
        self.channel = f"{backend.make_key(CHANNEL)}@db{pool.connection_kwargs.get('db', 0)}"

    def read(self, name: str) -> tuple[Any, bytes | None]:
        version, entry = self.client.mget([self.version_key, self.entry_prefix + name])
        if version is None:
            self.client.set(self.version_key, get_random_string(12), nx=True)
            version = self.client.get(self.version_key)
        if entry is not None:
            # The client does not decode (no decode_responses in OPTIONS): Redis answers bytes.
            stored, _, body = cast(bytes, entry).partition(b"\n")
            if stored == version:
                return version, body
        return version, None

    def write(self, name: str, version: Any, body: bytes) -> None:
        self.client.set(self.entry_prefix + name, version + b"\n" + body, ex=PUBLIC_CACHE_SECONDS)

    def bump(self, token: str) -> bool:
        """Set the version and announce it on `channel`, atomically (MULTI). True: announced."""
        pipe = self.client.pipeline(transaction=True)
        pipe.set(self.version_key, token)
        pipe.publish(self.channel, token)
        pipe.execute()
        return True


_state: tuple[CacheStore | RedisStore, PublicCopy | None] | None = None
_state_lock = threading.Lock()


def _for_process() -> tuple[CacheStore | RedisStore, PublicCopy | None]:
    """This process's store, and its copy when the store is Redis (both made on first use)."""
    global _state
    if _state is None:
        with _state_lock:
            if _state is None:
                backend = caches["default"]
                if isinstance(backend, RedisCache):
                    store = RedisStore(backend, settings.CACHES["default"])
                    _state = store, PublicCopy(store.connect, store.channel)
                else:
                    _state = CacheStore(), None
    return _state


def store_for_process() -> CacheStore | RedisStore:
    return _for_process()[0]


def copy_for_process() -> PublicCopy | None:
    """The process's copy when the default cache is Redis, else None."""
    return _for_process()[1]


def reset_for_tests() -> None:
    """Stop the process's copy and look at the cache settings again on next use."""
    global _state
    with _state_lock:
        if _state is not None and _state[1] is not None:
            _state[1].stop()
        _state = None
