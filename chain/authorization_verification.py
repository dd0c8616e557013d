"""The decision on a claim paid by a signed authorization (docs/protocol.md section 2a, "What is
checked on chain"), from what a ChainReader answers: the live client (chain/verification.py,
payment_verify) or the head watcher's batches of one block (chain/heads.py). One function decides,
whichever way the facts were fetched.

The claim names no transaction: its authorization's nonce is its commitment, and the token logs
`AuthorizationUsed(payer, nonce)` in whichever transaction uses it, whoever sent it, or
`AuthorizationCanceled(payer, nonce)`. So the decision starts from the token's logs for the payer
and the nonce, from the block the claim's search starts at to the head:

- used: the claim's transactionHash becomes that transaction's (responses/services.py,
  response_payment_found); once it is deep enough in a canonical block, chain/checks.py's
  AUTHORIZATION_CHECKS judge the Transfer right after the use; a pass confirms the claim at that
  Transfer's log index (one transaction may use several authorizations, each its own claim);
- cancelled, deep enough in a canonical block: rejected `authorization_cancelled`;
- neither: pending, until the block CHAIN_CONFIRMATIONS deep is at or after validBefore on a node
  that is not behind (the token can never accept it then): `authorization_expired`, or `reorged`
  for a claim confirmed once whose use left the chain (also after CHAIN_REORG_TIMEOUT_SECONDS, as
  in section 2). `not_found` is never given: expiry is such a claim's definite "never"."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.conf import settings
from django.utils import timezone
from eth_utils import to_checksum_address
from web3.types import FilterParams

from challenges.models import ChallengeAnchor
from challenges.money import token_units
from responses.authorizations import authorization_search_lowered, response_payment_found
from responses.models import Response
from responses.reasons import Reason

from .authorization import (
    AUTHORIZATION_CANCELED_TOPIC,
    AUTHORIZATION_USED_TOPIC,
    AuthorizationError,
    address_topic,
    decode_relayed_stake,
    nonce_topic,
)
from .checks import AUTHORIZATION_CHECKS, UsedAuthorization, first_failure
from .ledger import RELAYED_PAYMENT, RelayedWords
from .models import Payment
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
from .rpc import Block, BlockTag, ChainReader, Log, Receipt, Transaction
from .transfers import Transfer, block_time, finality_by_tag, is_deep_enough, to_hex

Wait = Callable[[str], VerificationPending]


def search_start(response: Response) -> int:
    """The first block of the search for the claim's authorization: where the POST placed it (a
    little before the head it saw), else the challenge's anchor block, else 0."""
    start = response.authorization.search_from_block
    if start is not None:
        return start
    try:
        anchor = response.challenge.anchor
    except ChallengeAnchor.DoesNotExist:
        return 0
    return anchor.block_number or 0


def authorization_log_filter(response: Response, *, to_block: int) -> FilterParams:
    """The token's AuthorizationUsed and AuthorizationCanceled logs of the claim's payer and nonce,
    up to `to_block` (the head the decision reads)."""
    return {
        "address": to_checksum_address(settings.USDC_ADDRESS),
        "topics": [
            [AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC],
            address_topic(response.submitter_address),
            nonce_topic(response.commitment),
        ],
        "fromBlock": min(search_start(response), to_block),
        "toBlock": to_block,
    }


def log_filter_key(params: FilterParams) -> str:
    """One filter's key in a round's answers (chain/heads.py, ChainReads)."""
    return json.dumps(params, sort_keys=True)


def expiry_block(head: int) -> int | BlockTag:
    """The block whose time says whether an unused authorization has expired: CHAIN_CONFIRMATIONS
    deep (its first confirmation being the head), or the finalized block."""
    if finality_by_tag():
        return "finalized"
    return max(0, head - int(str(settings.CHAIN_CONFIRMATIONS).strip()) + 1)


def first_event(logs: list[Log], response: Response) -> tuple[str, Log] | None:
    """The first use or cancel of the claim's authorization in chain order, as (topic, log): the
    token accepts only one of them, ever, on one chain. Logs of another emitter, payer or nonce, and
    logs a node reports removed, are not the claim's."""
    wanted = (address_topic(response.submitter_address), nonce_topic(response.commitment))
    found = [
        (to_hex(topics[0]), log)
        for log in logs
        if not log.get("removed")
        and str(log.get("address", "")).lower() == settings.USDC_ADDRESS.lower()
        and len(topics := log.get("topics", [])) == 3
        and to_hex(topics[0]) in (AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC)
        and (to_hex(topics[1]), to_hex(topics[2])) == wanted
    ]
    if not found:
        return None
    return min(found, key=lambda item: (int(item[1]["blockNumber"]), int(item[1]["logIndex"])))


def authorization_decide(*, response: Response, chain: ChainReader, touch_claim: bool = True) -> Outcome:
    """The decision on one pending claim paid by authorization. Raises VerificationPending when the
    chain cannot say yet (touch_claim: record the check first, as chain/verification.py does)."""

    def wait(why: str) -> VerificationPending:
        if touch_claim:
            record_check(response)
        return VerificationPending(why)

    head = chain.block_number()
    event = first_event(chain.get_logs(authorization_log_filter(response, to_block=head)), response)
    if event is None:
        return _unused(response, chain, head, wait)
    topic, log = event
    if topic == AUTHORIZATION_CANCELED_TOPIC:
        if not _settled(chain, int(log["blockNumber"]), to_hex(log["blockHash"])):
            raise wait("cancel not deep enough yet")
        return reject(response, Reason.AUTHORIZATION_CANCELLED)

    tx_hash = to_hex(log["transactionHash"])
    if response.transaction_hash != tx_hash:
        response_payment_found(response=response, transaction_hash=tx_hash)
    number = int(log["blockNumber"])
    if not is_deep_enough(chain, number):
        raise wait("not deep enough yet")
    receipt = chain.get_receipt(tx_hash)
    if receipt is None or int(receipt["status"]) != 1 or to_hex(receipt["blockHash"]) != to_hex(log["blockHash"]):
        raise wait("the use's receipt does not match its log: the node is switching chains")
    block = chain.get_block(number)
    if block is None or to_hex(block["hash"]) != to_hex(receipt["blockHash"]):
        raise wait("block replaced: the node is switching chains")
    tx = chain.get_transaction(tx_hash)
    used_index = _used_log_index(receipt, response)
    if tx is None or used_index is None:
        raise wait("receipt without its transaction or its log: inconsistent node")
    used = UsedAuthorization(
        receipt=receipt,
        block=block,
        used_log_index=used_index,
        submitter_address=response.submitter_address,
        stake_units=token_units(response.submission_stake),
        challenge=response.challenge,
    )
    paid = _paid(used, tx, response)
    code = first_failure(AUTHORIZATION_CHECKS, used)
    if code is not None:
        return reject(response, code, paid=paid)
    assert paid is not None, "the checks passed: a Transfer from the payer to the treasury"
    return confirm(response, paid)


def _unused(response: Response, chain: ChainReader, head: int, wait: Wait) -> Outcome:
    """Neither used nor cancelled on this node's chain: pending, or a definite "never"."""
    deep = chain.get_block(expiry_block(head))
    expired = deep is not None and int(deep["timestamp"]) >= response.authorization.valid_before
    reorged = response.reorged_at is not None
    timed_out = reorged and timezone.now() >= verification_deadline(response)
    if (expired or timed_out) and node_is_current(chain):
        if _ledger_shows_use(response):
            raise wait("the ledger holds its use before the search's start; searching from there")
        return reject(response, Reason.REORGED if reorged else Reason.AUTHORIZATION_EXPIRED)
    raise wait("authorization not used yet")


def _ledger_shows_use(response: Response) -> bool:
    """Before a definite "never": a use the search missed because it was mined before the search's
    start (the payer, or anyone, submitted it long before the claim arrived) is in the ledger when
    the indexer read it (chain/indexer.py). The search then starts a little before it."""
    row = (
        Payment.objects.filter(
            RELAYED_PAYMENT,
            removed=False,
            commitment=response.commitment.lower(),
            from_address__iexact=response.submitter_address,
        )
        .order_by("block_number")
        .first()
    )
    if row is None or row.block_number >= search_start(response):
        return False  # none, or one the search covers and did not find: a row the next index pass removes
    start = max(0, row.block_number - settings.CHAIN_REORG_DEPTH_BLOCKS)
    return authorization_search_lowered(response=response, block=start)


def _settled(chain: ChainReader, number: int, block_hash: str) -> bool:
    """Deep enough, and the block at that height is still the log's."""
    if not is_deep_enough(chain, number):
        return False
    block: Block | None = chain.get_block(number)
    return block is not None and to_hex(block["hash"]) == block_hash


def _used_log_index(receipt: Receipt, response: Response) -> int | None:
    """The log index of the token's AuthorizationUsed(payer, nonce) in the receipt."""
    found = first_event(receipt["logs"], response)
    return int(found[1]["logIndex"]) if found is not None and found[0] == AUTHORIZATION_USED_TOPIC else None


def _paid(used: UsedAuthorization, tx: Transaction, response: Response) -> PaidTransfer | None:
    """The Transfer after the use when it moved the payer's USDC to the treasury (whatever its
    amount): a payment of the ledger's, linked to this claim whether it confirms or not."""
    transfer = used.transfer
    if transfer is None or transfer.from_.lower() != response.submitter_address.lower():
        return None
    if transfer.to.lower() != settings.TREASURY_ADDRESS.lower():
        return None
    words = relayed_words(tx, transfer)
    if words is None or words.commitment != response.commitment.lower():
        # Used by a contract (a batch, a wallet): the row names the nonce and no challenge.
        words = RelayedWords(commitment=response.commitment.lower(), challenge_id=None)
    return PaidTransfer(transfer=transfer, receipt=used.receipt, mined_at=block_time(used.block), words=words)


def relayed_words(tx: Transaction, transfer: Transfer) -> RelayedWords | None:
    """What a relayed stake's calldata says of `transfer` (docs/protocol.md section 2a, "The relayed
    transaction"): its nonce and the challenge word after the nine (None without one), when the
    transaction is the token's own transferWithAuthorization call that made this very transfer
    (payer, recipient and amount); None for anything else (another call, a contract that used it)."""
    if str(tx.get("to") or "").lower() != settings.USDC_ADDRESS.lower():
        return None
    try:
        relayed = decode_relayed_stake(bytes(tx["input"]))
    except AuthorizationError:
        return None
    authorization = relayed.authorization
    if (authorization.from_address.lower(), authorization.to_address.lower(), authorization.value) != (
        transfer.from_.lower(),
        transfer.to.lower(),
        transfer.amount_units,
    ):
        return None
    return RelayedWords(commitment=authorization.nonce, challenge_id=relayed.challenge_id)
