"""Verifying a payout on chain: staff recorded which transaction paid a prize
(challenges/payouts.py); the worker (chain/tasks.py, chain.verify_payout) checks it the way a
stake is checked, with the same transfer check, depth rule and units conversion (chain/transfers.py,
challenges/money.py). Only a USDC Transfer from the treasury to the winner for exactly the amount
marks the payout paid."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from challenges.models import Payout, PayoutStatus
from challenges.money import token_units
from config.public_cache import public_answers_mark_stale

from .client import get_client
from .rpc import ChainReader, Receipt
from .transfers import Transfer, find_transfer, is_deep_enough, transfer_from_log, usdc_transfers

FAILURES = {
    "tx_failed": "The transaction failed on chain (receipt status 0).",
    "no_transfer_log": "The transaction moved no USDC.",
    "wrong_token": "The transaction moved a token other than USDC.",
    "wrong_sender": "The USDC was not sent from the treasury.",
    "wrong_recipient": "The USDC from the treasury went to another address than the winner's.",
    "amount_mismatch": "The USDC from the treasury to the winner is not the exact prize amount.",
    "not_found": "No node knows this transaction, long after it was recorded.",
}


class PayoutPending(Exception):
    """Not decidable yet (unknown or not deep enough): retry later."""


def judge_payout_transfers(
    *, payout: Payout, receipt: Receipt, treasury: str, usdc: str
) -> tuple[str, Transfer | None]:
    """("paid", the matching transfer) or (a failure code, None). Money is judged only from Transfer
    logs emitted by the USDC contract itself: any contract can emit a Transfer event."""
    units = token_units(payout.amount)
    transfer = find_transfer(receipt, usdc=usdc, sender=treasury, recipient=payout.address, units=units)
    if transfer is not None:
        return "paid", transfer
    transfers = usdc_transfers(receipt, usdc)
    treasury, winner = treasury.lower(), payout.address.lower()
    if not transfers:
        others = [t for t in map(transfer_from_log, receipt["logs"]) if t is not None]
        return ("wrong_token" if others else "no_transfer_log"), None
    from_treasury = [t for t in transfers if t.from_.lower() == treasury]
    if not from_treasury:
        return "wrong_sender", None
    if any(t.to.lower() == winner for t in from_treasury):
        return "amount_mismatch", None
    return "wrong_recipient", None


def _touch(payout: Payout) -> None:
    """Checked just now: the sweeper leaves a payout alone while its task is still retrying."""
    Payout.objects.filter(pk=payout.pk, status=PayoutStatus.VERIFYING).update(updated_at=timezone.now())


def payouts_stale_verifying(*, older_than_seconds: float, limit: int = 200) -> list[int]:
    """Payouts still being verified that no task has checked for a while (a lost message, a dead
    worker): the sweeper queues them again."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    rows = Payout.objects.filter(status=PayoutStatus.VERIFYING, updated_at__lt=cutoff).exclude(transaction_hash="")
    return list(rows.order_by("updated_at").values_list("pk", flat=True)[:limit])


def _fail(payout: Payout, code: str) -> str:
    failed = Payout.objects.filter(
        pk=payout.pk, status=PayoutStatus.VERIFYING, transaction_hash=payout.transaction_hash
    ).update(status=PayoutStatus.FAILED, failure_code=code, failure_reason=FAILURES[code], updated_at=timezone.now())
    if failed:
        public_answers_mark_stale()  # the winners answer lists each payout's status
    return PayoutStatus.FAILED


def payout_verify(*, payout_id: int, client: ChainReader | None = None) -> str:
    """Check a recorded payout transaction on chain; paid only on an exact USDC Transfer from the
    treasury to the payout's address. Idempotent; raises PayoutPending while undecidable."""
    payout = Payout.objects.get(pk=payout_id)
    if payout.status != PayoutStatus.VERIFYING or not payout.transaction_hash:
        return payout.status
    client = client or get_client()
    receipt = client.get_receipt(payout.transaction_hash)
    if receipt is None:
        timeout = settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS
        if payout.recorded_at and (timezone.now() - payout.recorded_at).total_seconds() > timeout:
            return _fail(payout, "not_found")
        _touch(payout)
        raise PayoutPending("transaction not known yet")
    if int(receipt["status"]) != 1:
        return _fail(payout, "tx_failed")
    block_number = int(receipt["blockNumber"])
    if not is_deep_enough(client, block_number):
        _touch(payout)
        raise PayoutPending("not enough confirmations yet")
    verdict, transfer = judge_payout_transfers(
        payout=payout, receipt=receipt, treasury=settings.TREASURY_ADDRESS, usdc=settings.USDC_ADDRESS
    )
    if verdict != "paid":
        return _fail(payout, verdict)
    assert transfer is not None, "a paid verdict comes with its transfer"
    with transaction.atomic():
        updated = Payout.objects.filter(
            pk=payout.pk, status=PayoutStatus.VERIFYING, transaction_hash=payout.transaction_hash
        ).update(
            status=PayoutStatus.PAID,
            block_number=block_number,
            log_index=transfer.log_index,
            verified_at=timezone.now(),
            failure_code="",
            failure_reason="",
            updated_at=timezone.now(),
        )
        if updated:
            public_answers_mark_stale()  # the winners answer now shows the payout
    return PayoutStatus.PAID if updated else Payout.objects.get(pk=payout_id).status
