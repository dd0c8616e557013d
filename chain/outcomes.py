"""What a decision on a claim's payment writes, whichever way it was paid (chain/verification.py for
a direct transfer, chain/authorization_verification.py for a signed authorization): "not yet",
confirmed at the payment's Transfer log, or rejected with a reason code. Each status change is the
claim's conditional UPDATE (responses/services.py), and the payment ledger (chain/ledger.py) moves
in the same database transaction."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from responses.models import PaymentMethod, Response, ResponseStatus
from responses.reasons import Reason
from responses.services import response_confirm, response_reject

from .calldata import DecodedTransfer
from .heights import head_is_current
from .ledger import RelayedWords, payment_upsert, payments_link_rejected_claim
from .rpc import ChainReader, Receipt
from .transfers import Transfer, to_hex

logger = logging.getLogger(__name__)


class VerificationPending(Exception):
    """No verdict yet (unknown transaction, not deep enough, block being replaced): retry later."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass(frozen=True)
class Outcome:
    status: str  # the claim's status after this call
    code: str = ""
    changed: bool = False  # whether this call made the change (False: someone else did, or no-op)


@dataclass(frozen=True)
class PaidTransfer:
    """The USDC Transfer that pays a claim, where the chain holds it, and what its transaction's
    calldata says (a direct stake's words, a relayed stake's nonce and challenge word, or None)."""

    transfer: Transfer
    receipt: Receipt
    mined_at: datetime
    words: DecodedTransfer | RelayedWords | None

    def record(self, response: Response) -> None:
        """The ledger row of this Transfer, linked to `response` (in the caller's transaction)."""
        transfer = self.transfer
        if not transfer.transaction_hash:
            transfer = Transfer(**{**transfer.__dict__, "transaction_hash": to_hex(self.receipt["transactionHash"])})
        payment_upsert(
            transfer,
            block_number=int(self.receipt["blockNumber"]),
            block_hash=to_hex(self.receipt["blockHash"]),
            transaction_index=int(self.receipt["transactionIndex"]),
            block_time=self.mined_at,
            decoded_input=self.words,
            response=response,
        )


def record_check(response: Response) -> None:
    """Record that a check ran, so the sweeper leaves a claim alone while its retries are alive."""
    Response.objects.filter(pk=response.pk, status=ResponseStatus.PENDING).update(updated_at=timezone.now())


def verification_deadline(response: Response) -> datetime:
    """When a claim whose transaction no node knows is rejected, counted from the latest of: its
    POST (CHAIN_NOT_FOUND_TIMEOUT_SECONDS), its block leaving the chain (CHAIN_REORG_TIMEOUT_SECONDS)
    and its re-opening once its transaction was found mined late (responses/reopening.py,
    CHAIN_NOT_FOUND_TIMEOUT_SECONDS again)."""
    started, seconds = response.created_at, settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS
    if response.reorged_at is not None:
        started, seconds = response.reorged_at, settings.CHAIN_REORG_TIMEOUT_SECONDS
    if response.reopened_at is not None and response.reopened_at > started:
        started, seconds = response.reopened_at, settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS
    return started + timedelta(seconds=seconds)


def node_is_current(chain: ChainReader) -> bool:
    """Whether the node that answered is at the highest head seen (chain/heights.py). The head
    watcher's round knows it for its whole round (chain/heads.py, ChainReads.head_current); the
    live client of one node is asked for its head (one call, made only when a verdict rests on it)."""
    known = getattr(chain, "head_current", None)
    return known if known is not None else head_is_current(chain.block_number())


def reject(response: Response, code: str, *, paid: PaidTransfer | None = None) -> Outcome:
    """Reject a pending claim with `code`. A direct transfer's claim that may be its payer's takes
    the ledger rows of its hash (chain/ledger.py); a claim paid by authorization takes only the
    Transfer that its authorization's use made (`paid`, when it went to the treasury): one
    transaction may pay several claims."""
    with transaction.atomic():
        changed = response_reject(response=response, code=code)
        if response.payment_method == PaymentMethod.TRANSFER:
            payments_link_rejected_claim(response=response, code=code)
        elif changed and paid is not None:
            paid.record(response)
    if changed:
        logger.info("response %s rejected: %s", response.pk, code)
    return current(response.pk, bool(changed))


def confirm(response: Response, paid: PaidTransfer) -> Outcome:
    receipt = paid.receipt
    block_number = int(receipt["blockNumber"])
    with transaction.atomic():
        # The claim and the challenge's sums move together, exactly once (responses/services.py).
        changed = response_confirm(
            response=response,
            submission_timestamp=paid.mined_at,
            block_number=block_number,
            block_hash=to_hex(receipt["blockHash"]),
            transaction_index=int(receipt["transactionIndex"]),
            log_index=paid.transfer.log_index,
        )
        # After resolution started it is rejected `after_resolution` instead: still its payer's
        # payment, so the ledger links it all the same (it is not unclaimed).
        if changed or _rejected_after_resolution(response.pk):
            paid.record(response)
    if changed:
        logger.info("response %s confirmed in block %s", response.pk, block_number)
    return current(response.pk, bool(changed))


def current(response_id: int, changed: bool) -> Outcome:
    """The claim's status and code as stored: a confirmation the resolution's barrier turned down
    is rejected `after_resolution` (responses/barrier.py)."""
    status, code = Response.objects.values_list("status", "rejection_code").get(pk=response_id)
    return Outcome(status=status, code=code if status == ResponseStatus.REJECTED else "", changed=changed)


def _rejected_after_resolution(response_id: int) -> bool:
    return Response.objects.filter(
        pk=response_id, status=ResponseStatus.REJECTED, rejection_code=Reason.AFTER_RESOLUTION
    ).exists()
