"""Django's Redis cache backend, keeping its Redis client.

Django's backend builds a new redis.Redis client (over the same connection pool) for every cache
operation, and redis-py copies its table of about 170 response callbacks into each new client: a
tenth of a millisecond of CPU per operation, two per POST of a signed stake (its throttle reads and
writes the client's history; docs/performance.md section 2). A client only holds the pool and that
table, and redis-py's clients may be shared between threads, so one per pool is kept."""

from __future__ import annotations

import threading
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class KeptClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # Django's, untyped in its stubs
        client = self._clients.get(id(pool))
        if client is None:
            with self._lock:
                client = self._clients.get(id(pool))
                if client is None:
                    client = self._clients[id(pool)] = redis.Redis(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
