"""The decision on a claim's payment (docs/protocol.md section 2).

`payment_verify` reads one claim's transaction from the chain and decides: confirmed, rejected
with a reason code (the first of chain/checks.py's PAYMENT_CHECKS it fails), or "not yet" (raises
VerificationPending; the task retries or the head watcher looks again at the next block). The
claim's services write the decision (responses/services.py: response_confirm, response_reject):
each is a conditional UPDATE on the current status, so two workers verifying the same claim at
once cannot count its stake twice. The ledger (chain/ledger.py) moves in the same database
transaction."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from challenges.money import token_units
from responses.models import Response, ResponseStatus
from responses.reasons import Reason
from responses.services import response_confirm, response_mark_sent_by_submitter, response_reject

from .checks import PAYMENT_CHECKS, MinedStake, first_failure, is_the_payers
from .client import ChainClient, get_client
from .heights import head_is_current
from .ledger import payment_upsert, payments_link_rejected_claim
from .rpc import ChainReader
from .transfers import Transfer, is_deep_enough, to_hex

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


def payment_verify(*, response_id: int, client: ChainReader | None = None) -> Outcome:
    """Decide one claim. Returns the outcome; raises VerificationPending when the chain cannot say
    yet, and client.ChainUnavailable when no RPC node answers (both mean: try again later)."""
    response = Response.objects.select_related("challenge", "challenge__anchor").get(pk=response_id)
    if response.status != ResponseStatus.PENDING:
        return Outcome(status=response.status, code=response.rejection_code)
    chain = client or get_client()
    if isinstance(chain, ChainClient):
        # Every answer of one decision from the same node (docs/chain.md, "A node that lags").
        return chain.on_one_node(lambda node: payment_decide(response=response, chain=node))
    return payment_decide(response=response, chain=chain)


def payment_decide(*, response: Response, chain: ChainReader, touch: bool = True) -> Outcome:
    """The decision on one pending claim, from what `chain` answers: the live client (one claim's
    own calls, payment_verify) or the head watcher's batch of one block (chain/heads.py,
    ChainReads). One place decides, whichever way the facts were fetched. touch=False: the caller
    records the check of every claim left pending itself (the head watcher, in one UPDATE per round)."""
    tx_hash = response.transaction_hash

    def wait(why: str) -> VerificationPending:
        if touch:
            _touch(response)
        return VerificationPending(why)

    # The receipt: present and status 1 (a failed transaction is rejected however deep it is).
    receipt = chain.get_receipt(tx_hash)
    if receipt is None:
        return _unknown_transaction(response, chain, touch=touch)
    if int(receipt["status"]) != 1:
        return _reject(response, Reason.TX_FAILED)

    # Deep enough, and the receipt's block is still the canonical one at its height.
    block_number = int(receipt["blockNumber"])
    if not is_deep_enough(chain, block_number):
        raise wait("not deep enough yet")
    block = chain.get_block(block_number)
    if block is None or to_hex(block["hash"]) != to_hex(receipt["blockHash"]):
        raise wait("block replaced: the node is switching chains")
    tx = chain.get_transaction(tx_hash)
    if tx is None:
        raise wait("receipt without transaction: inconsistent node")

    stake = MinedStake(
        tx=tx,
        submitter_address=response.submitter_address,
        commitment=response.commitment,
        challenge_id=response.challenge_id,
        receipt=receipt,
        block=block,
        stake_units=token_units(response.submission_stake),
        challenge=response.challenge,
    )
    if not response.sent_by_submitter and is_the_payers(stake):
        response_mark_sent_by_submitter(response=response, nonce=int(tx["nonce"]))
    code = first_failure(PAYMENT_CHECKS, stake)
    if code is not None:
        return _reject(response, code)
    return _confirm(response, stake)


def _unknown_transaction(response: Response, chain: ChainReader, *, touch: bool = True) -> Outcome:
    """No receipt: pending until the deadline, then not_found (or reorged for a claim that was
    confirmed once and whose transaction never came back), but only from a node that is not behind:
    a node that lags does not know the transactions of the blocks it has not reached."""
    code = Reason.REORGED if response.reorged_at is not None else Reason.NOT_FOUND
    if timezone.now() >= verification_deadline(response) and _node_is_current(chain):
        return _reject(response, code)
    if touch:
        _touch(response)
    raise VerificationPending("transaction not found yet")


def _node_is_current(chain: ChainReader) -> bool:
    """Whether the node that answered is at the highest head seen (chain/heights.py). The head
    watcher's round knows it for its whole round (chain/heads.py, ChainReads.head_current); the
    live client of one node is asked for its head (one call, made only at the deadline)."""
    known = getattr(chain, "head_current", None)
    return known if known is not None else head_is_current(chain.block_number())


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


def _touch(response: Response) -> None:
    """Record that a check ran, so the sweeper leaves a claim alone while its retries are alive."""
    Response.objects.filter(pk=response.pk, status=ResponseStatus.PENDING).update(updated_at=timezone.now())


# --- Status changes (conditional, idempotent) ------------------------------------------------


def _reject(response: Response, code: str) -> Outcome:
    with transaction.atomic():
        changed = response_reject(response=response, code=code)
        payments_link_rejected_claim(response=response, code=code)
    if changed:
        logger.info("response %s rejected: %s", response.pk, code)
    return _current(response.pk, bool(changed))


def _current(response_id: int, changed: bool) -> Outcome:
    """The claim's status and code as stored: a confirmation the resolution's barrier turned down
    is rejected `after_resolution` (responses/barrier.py)."""
    status, code = Response.objects.values_list("status", "rejection_code").get(pk=response_id)
    return Outcome(status=status, code=code if status == ResponseStatus.REJECTED else "", changed=changed)


def _confirm(response: Response, stake: MinedStake) -> Outcome:
    receipt = stake.receipt
    block_number = int(receipt["blockNumber"])
    block_hash = to_hex(receipt["blockHash"])
    tx_index = int(receipt["transactionIndex"])
    transfer = stake.transfer
    assert transfer is not None, "moved_the_money passed"
    if not transfer.transaction_hash:
        transfer = Transfer(**{**transfer.__dict__, "transaction_hash": response.transaction_hash})
    with transaction.atomic():
        # The claim and the challenge's sums move together, exactly once (responses/services.py).
        changed = response_confirm(
            response=response,
            submission_timestamp=stake.mined_at,
            block_number=block_number,
            block_hash=block_hash,
            transaction_index=tx_index,
            log_index=transfer.log_index,
        )
        # After resolution started it is rejected `after_resolution` instead: still its payer's
        # payment, so the ledger links it all the same (it is not unclaimed).
        late = not changed and _rejected_after_resolution(response.pk)
        if changed or late:
            payment_upsert(
                transfer,
                block_number=block_number,
                block_hash=block_hash,
                transaction_index=tx_index,
                block_time=stake.mined_at,
                decoded_input=stake.calldata,
                response=response,
            )
    if changed:
        logger.info("response %s confirmed in block %s", response.pk, block_number)
    return _current(response.pk, bool(changed))


def _rejected_after_resolution(response_id: int) -> bool:
    return Response.objects.filter(
        pk=response_id, status=ResponseStatus.REJECTED, rejection_code=Reason.AFTER_RESOLUTION
    ).exists()
