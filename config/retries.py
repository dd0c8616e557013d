"""The retry backoff of the Celery tasks that wait for a node to answer (chain/tasks.py)."""

import random

BASE_SECONDS = 2.0
MAX_SECONDS = 60.0


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2^n capped at MAX_SECONDS, then a random point in its
    upper half, so tasks that failed together do not retry together. The cap stays far under the
    broker's visibility timeout (an ETA message held longer would be redelivered to a second worker)."""
    base = BASE_SECONDS
    cap = MAX_SECONDS
    ceiling = min(cap, base * (2 ** min(retries, 32)))
    return random.uniform(ceiling / 2, ceiling)
