"""A per-process copy of the rendered public answers, invalidated by Redis pub/sub
(docs/decisions.md, "A copy in each process"). config/public_cache.py owns it: it
creates one per process when the default cache is Redis and hands it the way to connect and the
channel; nothing else uses this module.

config/public_cache.py keeps every public answer in Redis under a version token. A hit there still
costs a round trip to Redis per request, which was most of what separated a cached answer from the
bare floor view. This copy keeps the same rendered bytes in the memory of each web process and
serves them with no I/O at all, under one rule: an answer is served from the copy only while this
process is provably hearing every bump of the version.

- Transport. A bump sets the version and PUBLISHes on the channel in one MULTI
  (config/public_cache.py, RedisStore.bump), so no process can see the new version without the
  message being on its way, and Celery workers (which mark answers stale through the same
  `public_answers_mark_stale()`) reach every web process the same way.
- Subscriber. One daemon thread per process, started lazily on the first public read (so after
  gunicorn's fork; `os.register_at_fork` resets the copy in a child), with its own connection in
  subscribed mode. Any message drops the whole copy (the payload is not trusted: two bumps can be
  published in either order).
- Epoch. Each drop increments `epoch`. A reader notes the epoch before it reads Redis and may store
  what it read only if the epoch is unchanged at the moment of storing (under the lock the drop also
  takes): a bump whose message arrived in between has made what it read suspect. A bump after the
  store drops it when its message arrives. So a copy is never older than a change by more than the
  propagation of that change's message.
- Liveness. The copy is used only while the subscription is known live: the thread PINGs on the
  subscribed connection every `PING_SECONDS`, and a PONG proves every message published before its
  PING has been read (Redis answers in order on one connection). A reader uses the copy only if a
  PING sent at most `SILENCE_SECONDS` ago was answered; a connection that is closed (CLIENT KILL,
  Redis restarting) drops the copy at once, one that goes silent stops being used within
  `SILENCE_SECONDS`. Until the thread has subscribed again, every read goes to Redis as before (and
  to the database when Redis is down), and nothing is stored in the copy.
- Bound. At most `MAX_ENTRIES` answers (active, resolved and winners of as many challenges); a new
  one evicts the oldest stored. Each is kept at most `MAX_AGE_SECONDS`, then read from Redis again,
  so a bump that never reached Redis costs what it cost before this copy, plus that."""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from .conditional import body_etag

if TYPE_CHECKING:
    from redis.connection import ConnectionInterface

logger = logging.getLogger(__name__)

MAX_ENTRIES = 64
PING_SECONDS = 0.2
SILENCE_SECONDS = 1.0
RECONNECT_SECONDS = 0.5
# An answer is kept at most this long even with no message, which bounds (with the Redis entry's own
# PUBLIC_CACHE_SECONDS, config/public_cache.py) what a bump that failed to reach Redis costs.
MAX_AGE_SECONDS = 10.0


class PublicCopy:
    """The process's copy. `connect` makes a new, unconnected redis-py Connection (RESP2) to the
    cache's Redis; `channel` is where the bumps are published."""

    def __init__(self, connect: Callable[[], ConnectionInterface], channel: str) -> None:
        self._connect = connect
        self.channel = channel
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        # Also in a forked child: the parent's thread does not exist there and its lock may be held.
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[bytes, str, float]] = {}  # name -> (body, its ETag, stored at)
        self._epoch = 0
        self._live = False
        self._heard_sent_at = 0.0  # when the latest answered PING (or the SUBSCRIBE) was sent
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._connection: ConnectionInterface | None = None
        self.messages = 0  # invalidation messages received, for tests and the benchmark
        self.last_message_at = 0.0  # time.time() when the latest one was read
        self.subscriptions = 0  # how many times the thread has (re)subscribed

    # --- readers -----------------------------------------------------------------------------

    def get(self, name: str) -> tuple[bytes | None, int | None]:
        """(the stored answer, None) on a hit; else (None, the epoch to pass to `put`), or (None,
        None) when the copy is not in use (not subscribed, or not heard from recently)."""
        entry, epoch = self.get_entry(name)
        return (entry[0], None) if entry is not None else (None, epoch)

    def get_entry(self, name: str) -> tuple[tuple[bytes, str] | None, int | None]:
        """As `get`, with the answer's ETag: ((body, etag), None) on a hit."""
        self._ensure_started()
        with self._lock:
            if not self._live or time.monotonic() - self._heard_sent_at > SILENCE_SECONDS:
                return None, None
            entry = self._entries.get(name)
            if entry is None or time.monotonic() - entry[2] > MAX_AGE_SECONDS:
                return None, self._epoch
            return entry[:2], None

    def put(self, name: str, body: bytes, epoch: int) -> bool:
        """Store what was read from Redis (or built and stored there) after `get` gave `epoch`,
        unless a bump or a lost subscription came in between."""
        with self._lock:
            if not self._live or epoch != self._epoch:
                return False
            if name not in self._entries and len(self._entries) >= MAX_ENTRIES:
                del self._entries[next(iter(self._entries))]
            self._entries[name] = (body, body_etag(body), time.monotonic())
            return True

    def drop(self) -> None:
        """Forget every answer (a bump: its message, or this process's own write)."""
        with self._lock:
            self._epoch += 1
            self._entries = {}

    @property
    def live(self) -> bool:
        return self._live

    def __len__(self) -> int:
        return len(self._entries)

    # --- the subscriber thread -------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="public-copy", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Stop the thread and drop the copy (tests)."""
        self._stop.set()
        connection = self._connection
        if connection is not None:
            connection.disconnect()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _lost(self) -> None:
        with self._lock:
            self._live = False
            self._epoch += 1
            self._entries = {}

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self._subscribed_loop()
                failures = 0
            except Exception as exc:  # noqa: BLE001 - any failure: drop the copy, read Redis, retry
                if self._stop.is_set():
                    break
                failures += 1
                if failures == 1 or failures % 60 == 0:
                    logger.warning("public copy: subscription lost (%s: %s); reading Redis", type(exc).__name__, exc)
            finally:
                self._lost()
                if self._connection is not None:
                    self._connection.disconnect()
                    self._connection = None
            self._stop.wait(RECONNECT_SECONDS)

    def _subscribed_loop(self) -> None:
        connection = self._connection = self._connect()
        connection.connect()
        sent = time.monotonic()
        connection.send_command("SUBSCRIBE", self.channel)
        reply = connection.read_response()
        if not (isinstance(reply, list) and _text(reply[0]) == "subscribe"):
            raise ConnectionError(f"unexpected answer to SUBSCRIBE: {reply!r}")
        with self._lock:
            self._epoch += 1
            self._entries = {}
            self._live = True
            self._heard_sent_at = sent
        self.subscriptions += 1
        pings: deque[tuple[str, float]] = deque()
        numbers = itertools.count()
        next_ping = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= next_ping:
                token = str(next(numbers))
                connection.send_command("PING", token)
                pings.append((token, now))
                next_ping = now + PING_SECONDS
            if now - self._heard_sent_at > 2 * SILENCE_SECONDS:
                raise ConnectionError(f"no answer to PING for {now - self._heard_sent_at:.1f} s")
            if not connection.can_read(timeout=max(0.0, next_ping - time.monotonic())):
                continue
            reply = connection.read_response()
            kind = _text(reply[0]) if isinstance(reply, list) and reply else None
            if kind == "message":
                self.drop()
                self.last_message_at = time.time()
                self.messages += 1
            elif kind == "pong":
                token = _text(reply[1])
                while pings:
                    sent_token, sent_at = pings.popleft()
                    if sent_token == token:
                        with self._lock:
                            self._heard_sent_at = sent_at
                        break
            else:
                raise ConnectionError(f"unexpected message on the subscription: {reply!r}")


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
