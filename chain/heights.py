"""How far the chain has got, as the nodes showed it (docs/chain.md, "A node that lags").

A node that lags (a provider's backend behind the others, or the node a client fails over to before
it caught up) does not know the transactions of the blocks it has not reached: its "unknown" is not
"gone". So a verdict that rests on a transaction being unknown (`not_found`, or `reorged` for a
claim whose block left the chain) is given only by a node whose head is at least the highest head
any node showed recently. The highest head is kept in the database (ChainCursor HIGHEST_HEAD), so
every worker and the head watcher share it.

"Recently": a height nobody showed again for HIGHEST_HEAD_MEMORY_SECONDS is forgotten, and the next
node's head becomes the reference. A chain is never lower for long: this is a development chain
started afresh (anvil), or every node that reached that height gone; a verdict held back for ever
there would leave claims pending for ever (and a resolution waiting)."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from .models import ChainCursor

HIGHEST_HEAD = "highest-head-seen"
HIGHEST_HEAD_MEMORY_SECONDS = 900


def head_is_current(head: int) -> bool:
    """Record `head`, one node's answer, and say whether that node has reached the highest head
    any node showed in the last HIGHEST_HEAD_MEMORY_SECONDS (True also when none is recorded). One
    conditional UPDATE; a row is created the first time."""
    now = timezone.now()
    forgotten = now - timedelta(seconds=HIGHEST_HEAD_MEMORY_SECONDS)
    raised = (
        ChainCursor.objects.filter(name=HIGHEST_HEAD)
        .filter(Q(block_number__lte=head) | Q(updated_at__lt=forgotten))
        .update(block_number=head, updated_at=now)
    )
    if raised:
        return True
    _, created = ChainCursor.objects.get_or_create(name=HIGHEST_HEAD, defaults={"block_number": head})
    return created
