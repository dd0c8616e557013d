"""The retry backoff every Celery task of the project uses (chain/tasks.py, responses/tasks.py)."""

import random

from django.conf import settings

# The options of a task that retries until its service can decide (chain/tasks.py, responses/tasks.py):
# bound (it calls self.retry), acknowledged only once it finished, given back to the broker when its
# worker dies, its retries bounded by the task itself (CHAIN_VERIFY_MAX_RETRIES).
RETRYING_TASK = {"bind": True, "acks_late": True, "reject_on_worker_lost": True, "max_retries": None}


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2^n capped at CHAIN_VERIFY_RETRY_MAX_SECONDS, then a
    random point in its upper half, so claims that failed together do not retry together. The cap
    stays far under the broker's visibility timeout (an ETA message held longer would be
    redelivered to a second worker)."""
    base = settings.CHAIN_VERIFY_RETRY_BASE_SECONDS
    cap = settings.CHAIN_VERIFY_RETRY_MAX_SECONDS
    ceiling = min(cap, base * (2 ** min(retries, 32)))
    return random.uniform(ceiling / 2, ceiling)
