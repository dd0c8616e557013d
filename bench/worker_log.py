"""What the Celery worker's log says (its INFO lines, as the Procfile's worker and the e2e stack's write
them; times in UTC, the settings' TIME_ZONE): the relayer's sending runs, and how every task fared in
a window (how many ran, how long, and how many of the head watcher's messages expired unrun: the
beat gives `chain.watch_head` two intervals, config/settings/chain.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from .relay_figures import percentile

_STAMP = r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ [\w.]+ "
_LOG_LINE = re.compile(
    _STAMP + r"Task chain\.relay_send\[([\w-]+)\] (received|succeeded in ([\d.]+)s: (\d+))",
    re.M,
)
_SUCCEEDED = re.compile(_STAMP + r"Task ([\w.]+)\[[\w-]+\] succeeded in ([\d.]+)s", re.M)
_DISCARDED = re.compile(_STAMP + r"Discarding revoked task: ([\w.]+)\[", re.M)


def _ms(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC).timestamp() * 1000


def relay_runs(celery_log: str) -> list[dict]:
    """The relayer's sending runs in the stack's worker log (Celery's INFO lines, times in UTC as the
    settings' TIME_ZONE): when each `chain.relay_send` message was received, when its run started
    and ended (end minus its runtime), in ms since the epoch, and how many stakes it sent."""
    runs: dict[str, dict] = {}
    for stamp, task, what, runtime, sent in _LOG_LINE.findall(celery_log):
        at = _ms(stamp)
        run = runs.setdefault(task, {"task": task, "receivedAt": None, "startedAt": None, "endedAt": None, "sent": 0})
        if what == "received":
            run["receivedAt"] = at
        else:
            run.update(endedAt=at, startedAt=at - float(runtime) * 1000, sent=int(sent))
    return [r for r in runs.values() if r["endedAt"] is not None]


def sending_run(runs: list[dict], sent_at: float | None) -> dict | None:
    """The run that sent a stake at `sent_at` (ms): one that sent something and was running then."""
    if sent_at is None:
        return None
    return next((r for r in runs if r["sent"] and r["startedAt"] - 5 <= sent_at <= r["endedAt"] + 5), None)


def task_stats(log: str, start_ms: float, end_ms: float) -> dict:
    """Each task's runs that ended in [start_ms, end_ms]: how many, their seconds (p50 / max / sum),
    and the messages discarded unrun (expired) by task."""
    runs: dict[str, list[float]] = {}
    for stamp, task, seconds in _SUCCEEDED.findall(log):
        if start_ms <= _ms(stamp) <= end_ms:
            runs.setdefault(task, []).append(float(seconds))
    discarded: dict[str, int] = {}
    for stamp, task in _DISCARDED.findall(log):
        if start_ms <= _ms(stamp) <= end_ms:
            discarded[task] = discarded.get(task, 0) + 1
    return {
        "windowSeconds": (end_ms - start_ms) / 1000,
        "tasks": {
            task: {"runs": len(v), "p50Seconds": percentile(v, 50), "maxSeconds": max(v), "sumSeconds": sum(v)}
            for task, v in sorted(runs.items())
        },
        "discarded": dict(sorted(discarded.items())),
    }
