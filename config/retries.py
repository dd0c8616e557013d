"""The retry backoff every Celery task of the project uses (chain/tasks.py, responses/tasks.py)."""

import random

from django.conf import settings


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2^n capped at CHAIN_VERIFY_RETRY_MAX_SECONDS, then a
    random point in its upper half, so claims that failed together do not retry together. The cap
    stays far under the broker's visibility timeout (an ETA message held longer would be
    redelivered to a second worker)."""
    base = settings.CHAIN_VERIFY_RETRY_BASE_SECONDS
    cap = settings.CHAIN_VERIFY_RETRY_MAX_SECONDS
    ceiling = min(cap, base * (2 ** min(retries, 32)))
    return random.uniform(ceiling / 2, ceiling)
