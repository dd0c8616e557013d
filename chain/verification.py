"""The decision on a claim's payment (docs/protocol.md sections 2 and 2a).

`payment_verify` reads one claim's payment from the chain and decides: confirmed, rejected with a
reason code (the first of chain/checks.py's PAYMENT_CHECKS, or AUTHORIZATION_CHECKS for a claim
paid by authorization, that it fails), or "not yet" (raises VerificationPending; the task retries
or the head watcher looks again at the next block). A claim paid by authorization is decided by
chain/authorization_verification.py. The claim's services write the decision (chain/outcomes.py,
through responses/services.py: response_confirm, response_reject): each is a conditional UPDATE on
the current status, so two workers verifying the same claim at once cannot count its stake twice.
The ledger (chain/ledger.py) moves in the same database transaction."""

from __future__ import annotations

import logging

from django.utils import timezone

from challenges.money import token_units
from responses.models import PaymentMethod, Response, ResponseStatus
from responses.reasons import Reason
from responses.services import response_mark_sent_by_submitter

from .authorization_verification import authorization_decide
from .checks import PAYMENT_CHECKS, MinedStake, first_failure, is_the_payers
from .client import ChainClient, get_client
from .outcomes import (
    Outcome,
    PaidTransfer,
    VerificationPending,
    confirm,
    node_is_current,
    record_check,
    reject,
    verification_deadline,
)
from .rpc import ChainReader
from .transfers import is_deep_enough, to_hex

__all__ = ["Outcome", "VerificationPending", "payment_decide", "payment_verify", "verification_deadline"]

logger = logging.getLogger(__name__)


def payment_verify(*, response_id: int, client: ChainReader | None = None) -> Outcome:
    """Decide one claim. Returns the outcome; raises VerificationPending when the chain cannot say
    yet, and client.ChainUnavailable when no RPC node answers (both mean: try again later)."""
    response = Response.objects.select_related("challenge", "challenge__anchor", "authorization").get(pk=response_id)
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
    if response.payment_method == PaymentMethod.AUTHORIZATION:
        return authorization_decide(response=response, chain=chain, touch_claim=touch)
    tx_hash = response.transaction_hash

    def wait(why: str) -> VerificationPending:
        if touch:
            record_check(response)
        return VerificationPending(why)

    # The receipt: present and status 1 (a failed transaction is rejected however deep it is).
    receipt = chain.get_receipt(tx_hash)
    if receipt is None:
        return _unknown_transaction(response, chain, touch=touch)
    if int(receipt["status"]) != 1:
        return reject(response, Reason.TX_FAILED)

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
        return reject(response, code)
    transfer = stake.transfer
    assert transfer is not None, "moved_the_money passed"
    paid = PaidTransfer(transfer=transfer, receipt=receipt, mined_at=stake.mined_at, words=stake.calldata)
    return confirm(response, paid)


def _unknown_transaction(response: Response, chain: ChainReader, *, touch: bool = True) -> Outcome:
    """No receipt: pending until the deadline, then not_found (or reorged for a claim that was
    confirmed once and whose transaction never came back), but only from a node that is not behind:
    a node that lags does not know the transactions of the blocks it has not reached."""
    code = Reason.REORGED if response.reorged_at is not None else Reason.NOT_FOUND
    if timezone.now() >= verification_deadline(response) and node_is_current(chain):
        return reject(response, code)
    if touch:
        record_check(response)
    raise VerificationPending("transaction not found yet")
