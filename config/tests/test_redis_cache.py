"""The Redis cache (config/redis_cache.py) keeps one redis-py client per connection pool instead of
building one per operation, and still behaves as Django's own backend: values round-trip, the
throttle's history is kept, and a connection Redis dropped is replaced on the next operation."""

from __future__ import annotations

import threading

import pytest
import redis
from django.core.cache import cache, caches

from config.redis_cache import RedisCache

pytestmark = pytest.mark.integration


def test_one_client_serves_every_operation_and_thread(redis_cache):
    assert isinstance(caches["default"], RedisCache)
    backend = caches["default"]._cache  # type: ignore[attr-defined]  # the backend's client, untyped in the stubs
    first = backend.get_client(write=True)
    cache.set("history", [3.0, 2.0, 1.0], 60)
    assert cache.get("history") == [3.0, 2.0, 1.0]
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(backend.get_client())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(client is first for client in seen) and len(seen) == 8


def test_a_connection_redis_dropped_is_replaced(redis_cache):
    url, _ = redis_cache
    cache.set("key", "before", 60)
    redis.Redis.from_url(url).client_kill_filter(_type="normal", skipme=True)
    for _ in range(3):  # the first operation after the kill may see it, as with Django's own client
        try:
            cache.set("key", "after", 60)
            break
        except redis.ConnectionError:
            continue
    assert cache.get("key") == "after"
