"""Writes of the relayer's state: its account row (nonce, balance, alarm) and its transactions
(chain/models.py, RelayerAccount and RelayTransaction), and the progress of the calls it sends
(PotCall, and the signed stake a call carries). Every change of a status is one conditional UPDATE on
what the row holds now, so a task that runs twice, or late, changes nothing the second time; nonces
are written only by a caller holding the account row's lock (chain/relayer/sender.py, watch.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from responses.models import RelayStatus
from responses.services import signed_stake_relay_moved

from ..models import PotCall, PotCallStatus, RelayerAccount, RelayTransaction, RelayTxStatus
from .reasons import Outcome
from .selectors import wei_as_eth
from .signing import Attempt

logger = logging.getLogger(__name__)


def relayer_account_get(*, address: str) -> RelayerAccount:
    """The account row of `address`, made on first use."""
    try:
        with transaction.atomic():
            account, _ = RelayerAccount.objects.get_or_create(address=address)
    except IntegrityError:  # made meanwhile by another worker
        account = RelayerAccount.objects.get(address=address)
    return account


def relayer_lock(*, account_id: int) -> RelayerAccount:
    """The account row, locked until the caller's transaction ends: one sender at a time."""
    return RelayerAccount.objects.select_for_update().get(pk=account_id)


def relayer_nonce_set(*, account: RelayerAccount, next_nonce: int) -> None:
    """Under the lock: the next nonce the relayer uses."""
    RelayerAccount.objects.filter(pk=account.pk).update(next_nonce=next_nonce, updated_at=timezone.now())
    account.next_nonce = next_nonce


def relayer_note(*, account_id: int, error: str) -> None:
    RelayerAccount.objects.filter(pk=account_id).update(last_error=error[:500], updated_at=timezone.now())


def relayer_balance_record(*, account_id: int, balance_wei: int, stake_cost_wei: int) -> None:
    """The balance just read, and what one stake costs at the fees just read. Below
    RELAY_BALANCE_ALARM_WEI the alarm is raised, and an error logged, by the one UPDATE that finds it
    down; the recovery likewise, once: so once per crossing however many workers read it."""
    now = timezone.now()
    RelayerAccount.objects.filter(pk=account_id).update(
        balance_wei=balance_wei, balance_read_at=now, stake_cost_wei=stake_cost_wei, updated_at=now
    )
    threshold = int(settings.RELAY_BALANCE_ALARM_WEI)
    if balance_wei < threshold:
        if RelayerAccount.objects.filter(pk=account_id, alarm=False).update(alarm=True, alarm_since=now):
            address = RelayerAccount.objects.values_list("address", flat=True).get(pk=account_id)
            logger.error(
                "relayer %s: its balance %s is below the alarm of %s (RELAY_BALANCE_ALARM_WEI); send it ETH "
                "(gas money only, never USDC), or signed stakes will be refused and the game's steps wait",
                address,
                wei_as_eth(balance_wei),
                wei_as_eth(threshold),
            )
    elif RelayerAccount.objects.filter(pk=account_id, alarm=True).update(alarm=False, alarm_since=None):
        address = RelayerAccount.objects.values_list("address", flat=True).get(pk=account_id)
        logger.warning("relayer %s: its balance %s is back above the alarm", address, wei_as_eth(balance_wei))


def relay_transaction_record(*, account: RelayerAccount, attempt: Attempt, call_id: int | None) -> RelayTransaction:
    """Under the lock: the first transaction sent under a nonce."""
    now = timezone.now()
    return RelayTransaction.objects.create(
        account=account,
        nonce=attempt.nonce,
        call_id=call_id,
        kind=attempt.kind,
        transaction_hash=attempt.hash,
        attempts=[attempt.record()],
        max_fee_per_gas=attempt.fees.max_fee,
        max_priority_fee_per_gas=attempt.fees.tip,
        gas_limit=attempt.gas,
        max_cost_wei=attempt.fees.cost(attempt.gas),
        sent_at=now,
    )


def relay_transaction_replaced(*, row: RelayTransaction, attempt: Attempt, because: str = "") -> bool:
    """A new transaction under the row's nonce (higher fees, or a filler), if the row is still in
    flight under the hash the caller read."""
    now = timezone.now()
    fields: dict[str, object] = {
        "kind": attempt.kind,
        "transaction_hash": attempt.hash,
        "attempts": [*row.attempts, attempt.record()],
        "max_fee_per_gas": attempt.fees.max_fee,
        "max_priority_fee_per_gas": attempt.fees.tip,
        "gas_limit": attempt.gas,
        "max_cost_wei": attempt.fees.cost(attempt.gas),
        "resent_at": now,
        "last_error": "",
        "updated_at": now,
    }
    if because:
        fields["replaced_because"] = because
    return bool(
        RelayTransaction.objects.filter(
            pk=row.pk, status=RelayTxStatus.SENT, transaction_hash=row.transaction_hash
        ).update(**fields)
    )


@dataclass(frozen=True)
class Mined:
    transaction_hash: str
    kind: str
    succeeded: bool
    block_number: int
    gas_used: int
    effective_gas_price: int


def relay_transaction_mined(*, row_id: int, mined: Mined) -> bool:
    """The receipt of one of the row's transactions: what it cost and whether it reverted."""
    now = timezone.now()
    return bool(
        RelayTransaction.objects.filter(pk=row_id, status=RelayTxStatus.SENT).update(
            status=RelayTxStatus.MINED if mined.succeeded else RelayTxStatus.REVERTED,
            kind=mined.kind,
            transaction_hash=mined.transaction_hash,
            block_number=mined.block_number,
            gas_used=mined.gas_used,
            effective_gas_price=mined.effective_gas_price,
            cost_wei=mined.gas_used * mined.effective_gas_price,
            mined_at=now,
            updated_at=now,
        )
    )


def relay_transaction_lost(*, row_id: int, error: str) -> bool:
    now = timezone.now()
    return bool(
        RelayTransaction.objects.filter(pk=row_id, status=RelayTxStatus.SENT).update(
            status=RelayTxStatus.LOST, last_error=error[:500], updated_at=now
        )
    )


def relay_transaction_note(*, row_id: int, error: str) -> None:
    RelayTransaction.objects.filter(pk=row_id).update(last_error=error[:500], updated_at=timezone.now())


def relay_rebroadcast_noted(*, row_id: int) -> None:
    """A transaction the node had forgotten was sent again as it was."""
    RelayTransaction.objects.filter(pk=row_id).update(
        last_error="The node had forgotten it: sent again.", resent_at=timezone.now(), updated_at=timezone.now()
    )


# --- The calls' progress --------------------------------------------------------------------------

_CALL_MAY_FOLLOW: dict[str, tuple[str, ...]] = {
    PotCallStatus.SENT: (PotCallStatus.QUEUED, PotCallStatus.SENT),
    PotCallStatus.DONE: (PotCallStatus.SENT,),
    PotCallStatus.NOT_NEEDED: (PotCallStatus.QUEUED, PotCallStatus.SENT),
    PotCallStatus.REFUSED: (PotCallStatus.QUEUED,),
    PotCallStatus.FAILED: (PotCallStatus.QUEUED, PotCallStatus.SENT),
}
# A signed stake's relay status for each end of its call.
_RELAY_STATUS: dict[str, str] = {
    PotCallStatus.SENT: RelayStatus.SENT,
    PotCallStatus.NOT_NEEDED: RelayStatus.NOT_NEEDED,
    PotCallStatus.REFUSED: RelayStatus.REFUSED,
    PotCallStatus.FAILED: RelayStatus.FAILED,
}


def call_move(*, call_id: int, status: str, code: str = "", reason: str = "", transaction_hash: str = "") -> bool:
    """Move a call to `status`, and the signed stake it carries with it; True when this call moved it.
    A call mined (`done`) leaves its signed stake `sent`: the follower shows the stake in the pot."""
    fields: dict[str, object] = {"status": status, "code": code, "reason": reason[:300], "updated_at": timezone.now()}
    if transaction_hash:
        fields["transaction_hash"] = transaction_hash.lower()
    moved = bool(PotCall.objects.filter(pk=call_id, status__in=_CALL_MAY_FOLLOW[status]).update(**fields))
    signed_stake_id = PotCall.objects.filter(pk=call_id).values_list("signed_stake_id", flat=True).first()
    if moved and signed_stake_id is not None and status in _RELAY_STATUS:
        signed_stake_relay_moved(
            signed_stake_id=signed_stake_id,
            status=_RELAY_STATUS[status],
            code=code,
            reason=reason,
            transaction_hash=transaction_hash,
        )
    return moved


def call_end(*, call_id: int, outcome: Outcome) -> bool:
    """A call not (or no longer) sent, with the player's outcome for a signed stake."""
    status: str = {
        str(RelayStatus.NOT_NEEDED): PotCallStatus.NOT_NEEDED,
        str(RelayStatus.REFUSED): PotCallStatus.REFUSED,
    }.get(outcome.status, PotCallStatus.FAILED)
    return call_move(call_id=call_id, status=status, code=outcome.code, reason=outcome.reason)


def calls_refuse_queued_stakes(*, outcome: Outcome) -> int:
    """Every signed stake still queued, refused with `outcome` (the relay switched off, or out of funds)."""
    moved = 0
    for call in PotCall.objects.filter(status=PotCallStatus.QUEUED, signed_stake__isnull=False).only("pk"):
        moved += call_end(call_id=call.pk, outcome=outcome)
    return moved


def call_sent(*, call_id: int, transaction_hash: str) -> bool:
    return call_move(call_id=call_id, status=PotCallStatus.SENT, transaction_hash=transaction_hash)
