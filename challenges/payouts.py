"""Payouts: the prizes of a resolved challenge, from the exact split to a verified transfer.

At resolution one row per prize is written with its exact amount (scoring.prize_split through
selectors.challenge_winners). Staff send each prize from the treasury and record the transaction
hash; the worker then checks the chain the way it checks a stake, and only a USDC Transfer from
the treasury to the winner for exactly the amount marks the payout paid."""

import re
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import Challenge, ChallengeStatus, Payout, PayoutKind, PayoutStatus
from .selectors import challenge_winners

TX_HASH = re.compile(r"^0x[0-9a-f]{64}$", re.ASCII)
TX_HASH_MESSAGE = "A transaction hash is 0x followed by 64 hexadecimal characters."


class PayoutError(Exception):
    """A payout step that is not allowed; the message says why, in words for staff."""


def payouts_create(*, challenge: Challenge) -> list[Payout]:
    """The payout rows of a resolved challenge: earliest and highest to their winners' addresses
    (one response may win both, as two prizes), operations to OPERATIONS_ADDRESS. With no correct
    response nothing is due. Idempotent: existing rows are kept as they are."""
    if challenge.status != ChallengeStatus.RESOLVED:
        raise PayoutError("Payouts exist only for a resolved challenge.")
    winners = challenge_winners(challenge=challenge)
    if winners.earliest is None:
        return []
    prizes: list[tuple[str, object, str, Decimal, str]] = [
        (PayoutKind.EARLIEST, winners.earliest, winners.earliest.submitter_address, winners.split.earliest, ""),
        (PayoutKind.HIGHEST, winners.highest, winners.highest.submitter_address, winners.split.highest, ""),
    ]
    operations_address = settings.OPERATIONS_ADDRESS
    prizes.append(
        (
            PayoutKind.OPERATIONS,
            None,
            operations_address or settings.TREASURY_ADDRESS,
            winners.split.operations,
            # No separate operations wallet: the share simply stays where the stakes are.
            "" if operations_address else PayoutStatus.KEPT,
        )
    )
    rows = []
    with transaction.atomic():
        for kind, response, address, amount, status in prizes:
            if amount <= 0:
                continue
            row, _ = Payout.objects.get_or_create(
                challenge=challenge,
                kind=kind,
                defaults={
                    "response": response,
                    "address": address,
                    "amount": amount,
                    "status": status or PayoutStatus.DUE,
                },
            )
            rows.append(row)
    return rows


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
        payout_enqueue_verification(payout=payout)
    return payout


def payout_enqueue_verification(*, payout: Payout) -> None:
    from .tasks import verify_payout

    payout_id = payout.pk
    transaction.on_commit(lambda: verify_payout.delay(payout_id))


def paid_payout_hashes(*, challenge: Challenge) -> dict[str, str]:
    """Kind to transaction hash of the prizes verified as paid: what the public may see."""
    rows = Payout.objects.filter(challenge=challenge, status=PayoutStatus.PAID).values_list("kind", "transaction_hash")
    return dict(rows)


# --- Verification on chain ------------------------------------------------------------------------

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


def _field(obj, name: str):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def amount_units(amount: Decimal) -> int:
    units = amount.scaleb(settings.TOKEN_DECIMALS)
    if units != units.to_integral_value():
        raise PayoutError("A payout amount has at most 6 decimals.")
    return int(units)


def judge_payout_transfers(*, payout: Payout, receipt, treasury: str, usdc: str) -> tuple[str, object | None]:
    """("paid", the matching transfer) or (a failure code, None). Money is judged only from Transfer
    logs emitted by the USDC contract itself: any contract can emit a Transfer event."""
    from chain.transfers import transfer_from_log, usdc_transfers

    transfers = usdc_transfers(receipt, usdc)
    units = amount_units(payout.amount)
    treasury, winner = treasury.lower(), payout.address.lower()
    for transfer in transfers:
        if transfer.from_.lower() == treasury and transfer.to.lower() == winner and transfer.amount_units == units:
            return "paid", transfer
    if not transfers:
        others = [t for t in map(transfer_from_log, _field(receipt, "logs")) if t is not None]
        return ("wrong_token" if others else "no_transfer_log"), None
    from_treasury = [t for t in transfers if t.from_.lower() == treasury]
    if not from_treasury:
        return "wrong_sender", None
    if any(t.to.lower() == winner for t in from_treasury):
        return "amount_mismatch", None
    return "wrong_recipient", None


def _deep_enough(client, block_number: int) -> bool:
    setting = str(settings.CHAIN_CONFIRMATIONS).strip().lower()
    if setting == "finalized":
        finalized = client.get_block("finalized")
        return finalized is not None and int(_field(finalized, "number")) >= block_number
    return client.block_number() - block_number + 1 >= int(setting)


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
    Payout.objects.filter(pk=payout.pk, status=PayoutStatus.VERIFYING, transaction_hash=payout.transaction_hash).update(
        status=PayoutStatus.FAILED, failure_code=code, failure_reason=FAILURES[code], updated_at=timezone.now()
    )
    return PayoutStatus.FAILED


def payout_verify(*, payout_id: int, client=None) -> str:
    """Check a recorded payout transaction on chain; paid only on an exact USDC Transfer from the
    treasury to the payout's address. Idempotent; raises PayoutPending while undecidable."""
    from chain.client import get_client

    from .cache import invalidate_public_challenge_cache

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
    if int(_field(receipt, "status")) != 1:
        return _fail(payout, "tx_failed")
    block_number = int(_field(receipt, "blockNumber"))
    if not _deep_enough(client, block_number):
        _touch(payout)
        raise PayoutPending("not enough confirmations yet")
    verdict, transfer = judge_payout_transfers(
        payout=payout, receipt=receipt, treasury=settings.TREASURY_ADDRESS, usdc=settings.USDC_ADDRESS
    )
    if verdict != "paid":
        return _fail(payout, verdict)
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
            invalidate_public_challenge_cache()  # the winners answer now shows the payout
    return PayoutStatus.PAID if updated else Payout.objects.get(pk=payout_id).status
