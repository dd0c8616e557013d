"""Celery task names kept for one release after a task is renamed. A message already queued under
the old name (sent by the previous release's web process or beat, or a retry waiting in the
broker) still finds a task to run: the same function with the same options, registered under both
names. Used by chain/tasks.py and responses/tasks.py; drop an old name one release after its rename."""

from collections.abc import Callable
from typing import Any

from celery import shared_task


def shared_task_renamed(*, name: str, old_name: str, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """shared_task(name=name, **options), with the same function also registered as `old_name`."""

    def register(fun: Callable[..., Any]) -> Any:
        shared_task(name=old_name, **options)(fun)
        return shared_task(name=name, **options)(fun)

    return register
