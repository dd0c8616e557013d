"""Payouts: the prizes of a resolved challenge, from the exact split to a verified transfer.

At resolution one row per prize is written with its exact amount (responses/resolution.py,
payouts_create). Staff send each prize from the treasury and record the transaction hash here;
the worker then checks the chain the way it checks a stake (chain/payouts.py), and only a USDC
Transfer from the treasury to the winner for exactly the amount marks the payout paid."""

import re

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.public_cache import public_answers_mark_stale

from . import hooks
from .models import Challenge, Payout, PayoutStatus

TX_HASH = re.compile(r"^0x[0-9a-f]{64}$", re.ASCII)
TX_HASH_MESSAGE = "A transaction hash is 0x followed by 64 hexadecimal characters."


class PayoutError(Exception):
    """A payout step that is not allowed; the message says why, in words for staff."""


def normalise_tx_hash(value: str) -> str:
    text = (value or "").strip().lower()
    if not TX_HASH.match(text):
        raise PayoutError(TX_HASH_MESSAGE)
    return text


def payout_record_transaction(*, payout: Payout, transaction_hash: str, user) -> Payout:
    """Staff say which transaction paid this prize. It is verified on chain after commit; until
    then, and if verification fails, it is not paid."""
    tx_hash = normalise_tx_hash(transaction_hash)
    with transaction.atomic():
        payout = Payout.objects.select_for_update().get(pk=payout.pk)
        if payout.status in (PayoutStatus.PAID, PayoutStatus.KEPT):
            raise PayoutError(f"This payout is already {payout.get_status_display().split(':')[0].lower()}.")
        if payout.transaction_hash == tx_hash and payout.status == PayoutStatus.VERIFYING:
            return payout
        if Payout.objects.filter(transaction_hash=tx_hash).exclude(pk=payout.pk).exists():
            raise PayoutError("That transaction is already recorded for another payout.")
        payout.transaction_hash = tx_hash
        payout.status = PayoutStatus.VERIFYING
        payout.recorded_by = user
        payout.recorded_at = timezone.now()
        payout.failure_code = ""
        payout.failure_reason = ""
        payout.block_number = None
        payout.log_index = None
        payout.verified_at = None
        try:
            with transaction.atomic():
                payout.save()
        except IntegrityError as exc:  # recorded for another payout at the same moment
            raise PayoutError("That transaction is already recorded for another payout.") from exc
        public_answers_mark_stale()  # the winners answer lists each payout's status
        payout_enqueue_verification(payout=payout)
    return payout


def payout_enqueue_verification(*, payout: Payout) -> None:
    """Queue the check on chain once the transaction commits: the chain app's receiver of
    `payout_recorded` queues it (challenges/hooks.py, connected by chain/apps.py)."""
    payout_id = payout.pk
    transaction.on_commit(lambda: hooks.payout_recorded.send(sender=Payout, payout_id=payout_id))


def payouts_verify_again(*, payouts) -> list[Payout]:
    """Staff ask for a recorded payout (still verifying, or failed) to be checked on chain again:
    it goes back to verifying and its check is queued. Returns the payouts queued."""
    queued = []
    for payout in payouts.filter(status__in=[PayoutStatus.VERIFYING, PayoutStatus.FAILED]).exclude(transaction_hash=""):
        Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.VERIFYING)
        payout_enqueue_verification(payout=payout)
        queued.append(payout)
    if queued:
        public_answers_mark_stale()  # the winners answer lists each payout's status
    return queued


def payouts_public(*, challenge: Challenge) -> list[dict]:
    """The prizes of a resolved challenge as the winners answer lists them (docs/protocol.md section
    6, "Payouts"): kind, address, amount, status, and the transaction once the chain has shown it
    paid (null before: a recorded transaction still being verified, or one that failed, is staff's
    to correct and proves nothing yet). Earliest, highest, operations."""
    rows = Payout.objects.filter(challenge=challenge).order_by("kind")
    return [
        {
            "kind": payout.kind,
            "address": payout.address,
            "amount": f"{payout.amount:.6f}",
            "status": payout.status,
            "transactionHash": payout.transaction_hash if payout.status == PayoutStatus.PAID else None,
        }
        for payout in rows
    ]


def paid_payout_hashes(*, challenge: Challenge) -> dict[str, str]:
    """Kind to transaction hash of the prizes verified as paid: what the public may see."""
    rows = Payout.objects.filter(challenge=challenge, status=PayoutStatus.PAID).values_list("kind", "transaction_hash")
    return dict(rows)
