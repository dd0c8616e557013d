"""The pot's events, followed block by block (docs/protocol.md section 3): the follower reads the pot's
logs up to the head, replaces what it had stored for the last CHAIN_REORG_DEPTH_BLOCKS with what the
node says now (so a reorg takes its events with it, and they come back when their transaction does),
and rebuilds the projections the site shows from the events (chain/pot/projection.py).

One round reads everything from one node (ChainClient.on_one_node): a head from one node and logs from
another that lags would read "not there yet" as "gone". A node whose head is below the last one read
is behind: its round is skipped, unless nothing moved for HEAD_RESET_SECONDS (a development chain
started afresh), when the follower starts over from the pot's deploy block."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from challenges.models import ChainClock
from challenges.services import chain_clock_set

from ..models import PotEvent
from ..node.calls import as_int, rpc_batch
from ..node.client import ChainClient, get_client
from ..node.depth import confirmed_height
from .abi import Event, decode_log
from .projection import Head, project_challenges

logger = logging.getLogger(__name__)

HEAD_RESET_SECONDS = 900


@dataclass
class FollowResult:
    head: int | None = None
    added: int = 0
    removed: int = 0
    changed: set[int] = field(default_factory=set)
    skipped: str = ""


def pot_follow(*, client: ChainClient | None = None) -> FollowResult:
    """One round: the events up to the head, the projections of every challenge they touch and of
    every challenge not settled yet (its phase moves with the block time)."""
    if not settings.POT_ADDRESS:
        return FollowResult(skipped="no pot is configured (POT_ADDRESS)")
    return (client or get_client()).on_one_node(_round)


def _round(client: ChainClient) -> FollowResult:
    (head_number_hex,) = rpc_batch(client, [("eth_blockNumber", [])])
    head_number = as_int(head_number_hex)
    clock = ChainClock.objects.filter(pk=1).first()
    deploy = settings.POT_DEPLOY_BLOCK
    start_over = False
    if clock is not None and head_number < clock.block_number:
        if timezone.now() - clock.updated_at < timedelta(seconds=HEAD_RESET_SECONDS):
            return FollowResult(skipped=f"the node's head {head_number} is behind block {clock.block_number}")
        logger.warning("follower: the chain is back at block %s after %s: starting over", head_number, clock)
        start_over = True
    (head_block,) = rpc_batch(client, [("eth_getBlockByNumber", [hex(head_number), False])])
    if clock is not None and not start_over and clock.block_hash == head_block["hash"].lower():
        return FollowResult(head=head_number)
    if clock is None or start_over:
        start = deploy
    else:
        start = max(deploy, min(clock.block_number, head_number) - settings.CHAIN_REORG_DEPTH_BLOCKS + 1)
    events = _events(client, start=start, end=head_number)
    times = _block_times(client, events, known={head_number: as_int(head_block["timestamp"])})
    head = Head(
        number=head_number,
        time=datetime.fromtimestamp(as_int(head_block["timestamp"]), tz=UTC),
        confirmed=confirmed_height(client, head_number),
    )
    with transaction.atomic():
        # One follower at a time: the clock's row is the lock (two beats may overlap).
        ChainClock.objects.select_for_update().filter(pk=1).first()
        result = _store(events, times, start=start, start_over=start_over)
        chain_clock_set(
            block_number=head_number,
            block_hash=head_block["hash"],
            block_time=head.time,
            confirmed_block=head.confirmed,
        )
        since = clock.block_time if clock is not None and not start_over else None
        result.changed |= project_challenges(touched=result.changed, start=start, head=head, since=since)
    result.head = head_number
    return result


def _events(client: ChainClient, *, start: int, end: int) -> list[Event]:
    span = max(1, settings.CHAIN_LOG_RANGE)
    calls = [
        (
            "eth_getLogs",
            [{"address": settings.POT_ADDRESS, "fromBlock": hex(low), "toBlock": hex(min(end, low + span - 1))}],
        )
        for low in range(start, end + 1, span)
    ]
    logs = [log for answer in rpc_batch(client, calls) for log in (answer or [])]
    events = [event for event in (decode_log(log) for log in logs if not log.get("removed")) if event is not None]
    return sorted(events, key=lambda e: (e.block_number, e.log_index))


def _block_times(client: ChainClient, events: list[Event], *, known: dict[int, int]) -> dict[int, datetime]:
    """The timestamp of every block that holds an event: from the stored events where the block is the
    same, else read in one batch."""
    numbers = {e.block_number for e in events} - set(known)
    stored = dict(
        PotEvent.objects.filter(block_number__in=numbers).values_list("block_number", "block_time").distinct()
    )
    missing = sorted(numbers - set(stored))
    blocks = rpc_batch(client, [("eth_getBlockByNumber", [hex(n), False]) for n in missing]) if missing else []
    times = {n: datetime.fromtimestamp(seconds, tz=UTC) for n, seconds in known.items()}
    times.update(stored)
    times.update(
        {n: datetime.fromtimestamp(as_int(b["timestamp"]), tz=UTC) for n, b in zip(missing, blocks, strict=True)}
    )
    return times


def _store(events: list[Event], times: dict[int, datetime], *, start: int, start_over: bool) -> FollowResult:
    """Replace the stored events from block `start` with `events`; returns what changed."""
    result = FollowResult()
    stored_rows = PotEvent.objects.all() if start_over else PotEvent.objects.filter(block_number__gte=start)
    stored = {(row.block_number, row.log_index): row for row in stored_rows}
    fresh = {(e.block_number, e.log_index): e for e in events}
    gone = [row for key, row in stored.items() if key not in fresh or fresh[key].block_hash != row.block_hash]
    new = [e for key, e in fresh.items() if key not in stored or stored[key].block_hash != e.block_hash]
    if gone:
        PotEvent.objects.filter(pk__in=[row.pk for row in gone]).delete()
        logger.info("follower: %s events left the chain from block %s", len(gone), min(r.block_number for r in gone))
    PotEvent.objects.bulk_create(
        [
            PotEvent(
                block_number=e.block_number,
                block_hash=e.block_hash,
                block_time=times[e.block_number],
                transaction_hash=e.transaction_hash,
                log_index=e.log_index,
                name=e.name,
                challenge_id=e.challenge_id,
                args=e.args,
            )
            for e in new
        ]
    )
    result.added, result.removed = len(new), len(gone)
    result.changed = {row.challenge_id for row in gone if row.challenge_id is not None} | {
        e.challenge_id for e in new if e.challenge_id is not None
    }
    return result
