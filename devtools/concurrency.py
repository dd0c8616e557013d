"""Calls made at one moment from several threads, for the tests that prove what PostgreSQL's locks
and unique constraints do under concurrent requests or verifications."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def at_once(calls: Sequence[Callable[[], T]], *, timeout: float = 60.0) -> list[T]:
    """Each call in its own thread, all released together by a barrier; each thread closes its own
    database connection when done. Returns the results in the order of `calls`; the first exception
    a call raised is raised here, once every thread has ended (or `timeout` passed)."""
    from django.db import connection

    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[index] = calls[index]()
        except BaseException as exc:  # noqa: BLE001 - raised in the calling thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    if errors:
        raise errors[0]
    return results
