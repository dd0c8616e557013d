"""The decision on a claim paid by authorization (chain/authorization_verification.py), on chain
facts built by hand and answered through the head watcher's reader (chain/heads.py, ChainReads):
the shapes a real token never produces (a Transfer that is not right after its AuthorizationUsed,
one emitted by another contract, an AuthorizationUsed look-alike of another emitter), and each
verdict's edges, with the database real. The same decisions on anvil, from the real token, are in
chain/tests/test_authorization_claims.py."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any, cast

import pytest
from django.utils import timezone

from chain.authorization import AUTHORIZATION_CANCELED_TOPIC, AUTHORIZATION_USED_TOPIC, address_topic, nonce_topic
from chain.authorization_verification import authorization_log_filter, log_filter_key
from chain.checks import AUTHORIZATION_CHECKS, PAYMENT_CHECKS, UsedAuthorization, first_failure
from chain.heads import ChainReads
from chain.models import Payment
from chain.outcomes import Outcome
from chain.transfers import TRANSFER_TOPIC
from chain.verification import VerificationPending, payment_decide
from challenges.models import Challenge
from devtools.anchors import record_confirmed_anchor
from responses.models import Response, ResponseStatus
from responses.reasons import Reason

pytestmark = pytest.mark.django_db

USDC = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"
TREASURY = "0x7777777777777777777777777777777777777777"
RELAYER = "0x8888888888888888888888888888888888888888"
OTHER_CONTRACT = "0x9999999999999999999999999999999999999999"
TX = "0x" + "ab" * 32
BLOCK = 100


@pytest.fixture(autouse=True)
def _addresses(settings):
    settings.USDC_ADDRESS = USDC
    settings.TREASURY_ADDRESS = TREASURY
    settings.CHAIN_CONFIRMATIONS = "2"


def block_hash(number: int, fork: str = "") -> str:
    return "0x" + f"{fork}{number}".encode().hex().rjust(64, "0")


def used_log(claim: Response, index: int, *, emitter: str = USDC, topic: str = AUTHORIZATION_USED_TOPIC) -> dict:
    return {
        "address": emitter,
        "topics": [topic, address_topic(claim.submitter_address), nonce_topic(claim.commitment)],
        "data": "0x",
        "logIndex": index,
        "transactionHash": TX,
        "transactionIndex": 3,
        "blockNumber": BLOCK,
        "blockHash": block_hash(BLOCK),
    }


def transfer_log(index: int, *, sender: str, to: str = TREASURY, units: int = 2_500_000, emitter: str = USDC) -> dict:
    return {
        "address": emitter,
        "topics": ["0x" + TRANSFER_TOPIC.hex(), address_topic(sender), address_topic(to)],
        "data": "0x" + units.to_bytes(32, "big").hex(),
        "logIndex": index,
        "transactionHash": TX,
        "transactionIndex": 3,
        "blockNumber": BLOCK,
        "blockHash": block_hash(BLOCK),
    }


def receipt(*logs: dict) -> dict:
    return {
        "transactionHash": TX,
        "status": 1,
        "blockNumber": BLOCK,
        "blockHash": block_hash(BLOCK),
        "transactionIndex": 3,
        "logs": list(logs),
        "contractAddress": None,
    }


def block(number: int, timestamp: int, fork: str = "") -> dict:
    return {"number": number, "hash": block_hash(number, fork), "timestamp": timestamp}


def reads(claims, *, head: int, logs: list[dict], receipt_=None, when: int | None = None, current=True, **blocks):
    """What a head watcher round would have read at `head` for `claims`: every claim's search
    answers `logs` (the decision keeps its own), the use's receipt and transaction (a relayer's
    call of a contract: the row names no challenge), and the blocks (`when`: every block's time)."""
    when = when if when is not None else int(time.time())
    known = {number: block(number, when) for number in range(BLOCK - 1, head + 1)}
    known.update(blocks.get("replaced", {}))
    relayed_by_a_contract = {"hash": TX, "from": RELAYER, "to": OTHER_CONTRACT, "input": b"", "value": 0, "nonce": 1}
    # Plain dicts in the shapes of chain/rpc.py (a node's formatted answers).
    return ChainReads(
        head=head,
        receipts=cast(Any, {TX: receipt_} if receipt_ is not None else {}),
        blocks=cast(Any, known),
        transactions=cast(Any, {TX: relayed_by_a_contract}),
        logs={log_filter_key(authorization_log_filter(c, to_block=head)): cast(Any, logs) for c in claims},
        head_current=current,
    )


def decide(claim: Response, chain: ChainReads) -> Outcome:
    claim = Response.objects.select_related("challenge", "challenge__anchor", "authorization").get(pk=claim.pk)
    return payment_decide(response=claim, chain=chain)


@pytest.fixture
def challenge(make_challenge):
    """Open, its anchor recorded confirmed in block 7 without a chain (devtools/anchors.py)."""
    challenge = make_challenge(anchored=False)  # chain/tests/conftest.py would anchor on anvil
    record_confirmed_anchor(challenge)
    return Challenge.objects.select_related("anchor").get(pk=challenge.pk)


@pytest.fixture
def claim(challenge, make_authorization_response):
    return make_authorization_response(challenge, search_from_block=90)


def used_by(claim: Response, *logs: dict, chain_head: int = BLOCK + 1) -> UsedAuthorization:
    return UsedAuthorization(
        receipt=cast(Any, receipt(*logs)),
        block=cast(Any, block(BLOCK, int(time.time()))),
        used_log_index=5,
        submitter_address=claim.submitter_address,
        stake_units=2_500_000,
        challenge=Challenge.objects.select_related("anchor").get(pk=claim.challenge_id),
    )


# --- AUTHORIZATION_CHECKS on receipts a real token does not produce -----------------------------------


def test_the_checks_share_the_anchor_and_window_rules_with_transfers_and_come_in_the_protocols_order():
    names = [check.__name__ for check in AUTHORIZATION_CHECKS]
    assert names == [
        "transfer_follows_the_use",
        "transfer_to_the_treasury",
        "transfer_of_the_stake",
        "after_the_anchor",
        "while_open",
    ]
    assert AUTHORIZATION_CHECKS[-2:] == PAYMENT_CHECKS[-2:]


@pytest.mark.parametrize(
    ("after_the_use", "expected"),
    [
        ("right after", None),
        ("two after", Reason.NO_TRANSFER_LOG),
        ("none", Reason.NO_TRANSFER_LOG),
        ("another emitter", Reason.NO_TRANSFER_LOG),
        ("another payer", Reason.NO_TRANSFER_LOG),
        ("another recipient", Reason.WRONG_RECIPIENT),
        ("another amount", Reason.AMOUNT_MISMATCH),
    ],
)
def test_only_the_usdc_transfer_right_after_the_use_pays_the_claim(claim, after_the_use, expected):
    """A Transfer that is not right after its AuthorizationUsed (another log between them) does not
    count, even when it is the payer's to the treasury of the stake: FiatToken emits the two back to
    back, so anything else is another movement of money in the same transaction."""
    payer = claim.submitter_address
    logs = {
        "right after": [used_log(claim, 5), transfer_log(6, sender=payer)],
        "two after": [used_log(claim, 5), transfer_log(6, sender=RELAYER), transfer_log(7, sender=payer)],
        "none": [used_log(claim, 5)],
        "another emitter": [used_log(claim, 5), transfer_log(6, sender=payer, emitter=OTHER_CONTRACT)],
        "another payer": [used_log(claim, 5), transfer_log(6, sender=RELAYER)],
        "another recipient": [used_log(claim, 5), transfer_log(6, sender=payer, to=RELAYER)],
        "another amount": [used_log(claim, 5), transfer_log(6, sender=payer, units=2_499_999)],
    }[after_the_use]
    assert first_failure(AUTHORIZATION_CHECKS, used_by(claim, *logs)) == expected


# --- The decision, from a round's reads ----------------------------------------------------------------


def test_a_use_is_recorded_at_once_and_confirms_once_deep_enough_at_its_transfers_log(claim):
    logs = [used_log(claim, 5), transfer_log(6, sender=claim.submitter_address)]
    with pytest.raises(VerificationPending):
        decide(claim, reads([claim], head=BLOCK, logs=logs[:1]))
    claim.refresh_from_db()
    assert (claim.status, claim.transaction_hash) == (ResponseStatus.PENDING, TX)  # whoever sent it

    outcome = decide(claim, reads([claim], head=BLOCK + 1, logs=logs[:1], receipt_=receipt(*logs)))
    assert outcome == Outcome(status=ResponseStatus.CONFIRMED, code="", changed=True)
    claim.refresh_from_db()
    assert (claim.block_number, claim.transaction_index, claim.log_index) == (BLOCK, 3, 6)
    assert Challenge.objects.get(pk=claim.challenge_id).staked_sum == Decimal("2.5")
    row = Payment.objects.get()
    assert (row.transaction_hash, row.log_index, row.response_id) == (TX, 6, claim.pk)
    assert (row.commitment, row.challenge_id_word, row.timestamp_word) == (claim.commitment, None, None)


def test_two_authorizations_used_in_one_transaction_confirm_two_claims_each_at_its_own_transfer(
    challenge, make_authorization_response
):
    first = make_authorization_response(challenge, stake="2.5", search_from_block=90)
    second = make_authorization_response(challenge, "30, 31", stake="2.5", search_from_block=90)
    logs = [
        used_log(first, 1),
        transfer_log(2, sender=first.submitter_address),
        used_log(second, 3),
        transfer_log(4, sender=second.submitter_address),
    ]
    chain = reads([first, second], head=BLOCK + 1, logs=logs, receipt_=receipt(*logs))
    assert decide(first, chain).status == ResponseStatus.CONFIRMED
    assert decide(second, chain).status == ResponseStatus.CONFIRMED
    positions = list(Response.objects.order_by("log_index").values_list("pk", "transaction_hash", "log_index"))
    assert positions == [(first.pk, TX, 2), (second.pk, TX, 4)]
    challenge.refresh_from_db()
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("5"), 2)


def test_a_look_alike_log_of_another_contract_is_not_the_tokens(claim):
    fake = [used_log(claim, 5, emitter=OTHER_CONTRACT), transfer_log(6, sender=claim.submitter_address)]
    with pytest.raises(VerificationPending):
        decide(claim, reads([claim], head=BLOCK + 5, logs=fake, receipt_=receipt(*fake)))
    claim.refresh_from_db()
    assert claim.transaction_hash == ""


def test_a_cancel_rejects_only_once_deep_enough_and_still_canonical(claim):
    cancel = [used_log(claim, 5, topic=AUTHORIZATION_CANCELED_TOPIC)]
    with pytest.raises(VerificationPending):
        decide(claim, reads([claim], head=BLOCK, logs=cancel))
    with pytest.raises(VerificationPending):  # the node holds another block at that height now
        decide(claim, reads([claim], head=BLOCK + 1, logs=cancel, replaced={BLOCK: block(BLOCK, 0, "fork")}))
    outcome = decide(claim, reads([claim], head=BLOCK + 1, logs=cancel))
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, Reason.AUTHORIZATION_CANCELLED)


def test_unused_it_expires_only_when_the_block_confirmations_deep_reached_valid_before_on_a_current_node(
    claim, settings
):
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0  # never not_found: expiry is its "never"
    valid_before = claim.authorization.valid_before
    head = BLOCK + 10
    # The head itself is at validBefore, the block CHAIN_CONFIRMATIONS deep one second before.
    almost = reads([claim], head=head, logs=[], when=valid_before - 1, replaced={head: block(head, valid_before)})
    with pytest.raises(VerificationPending):
        decide(claim, almost)
    with pytest.raises(VerificationPending):  # a node behind the highest head seen says nothing
        decide(claim, reads([claim], head=head, logs=[], when=valid_before, current=False))
    outcome = decide(claim, reads([claim], head=head, logs=[], when=valid_before))
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, Reason.AUTHORIZATION_EXPIRED)


def test_a_claim_whose_use_left_the_chain_ends_reorged_at_expiry_or_after_the_reorg_timeout(
    challenge, make_authorization_response, settings
):
    expired, waiting = (make_authorization_response(challenge, t, search_from_block=90) for t in ("1, 1", "2, 2"))
    Response.objects.filter(pk__in=[expired.pk, waiting.pk]).update(reorged_at=timezone.now(), transaction_hash=TX)
    valid_before = expired.authorization.valid_before
    outcome = decide(expired, reads([expired], head=BLOCK + 10, logs=[], when=valid_before))
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, Reason.REORGED)

    with pytest.raises(VerificationPending):  # still valid, within CHAIN_REORG_TIMEOUT_SECONDS
        decide(waiting, reads([waiting], head=BLOCK + 10, logs=[]))
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 0
    outcome = decide(waiting, reads([waiting], head=BLOCK + 10, logs=[]))
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, Reason.REORGED)


def test_the_ledger_holding_a_use_before_the_searchs_start_moves_the_search_instead_of_expiring_it(claim, settings):
    """The payer submitted the authorization long before the claim arrived (more blocks before the
    POST than the search reaches back): the indexer recorded the relayed stake, so the claim is not
    told that no USDC moved; the search starts a little before that block from now on."""
    settings.CHAIN_REORG_DEPTH_BLOCKS = 64
    Payment.objects.create(
        transaction_hash=TX,
        log_index=6,
        block_number=80,
        block_hash=block_hash(80),
        transaction_index=3,
        from_address=claim.submitter_address,
        to_address=TREASURY,
        amount_units=Decimal(2_500_000),
        commitment=claim.commitment,
        challenge_id_word=Decimal(claim.challenge_id),
    )
    expired = reads([claim], head=BLOCK + 10, logs=[], when=claim.authorization.valid_before)
    with pytest.raises(VerificationPending):
        decide(claim, expired)
    claim.authorization.refresh_from_db()
    assert claim.authorization.search_from_block == 80 - 64
    assert authorization_log_filter(claim, to_block=BLOCK)["fromBlock"] == 16


def test_the_search_starts_at_the_claims_block_else_at_the_anchors(challenge, make_authorization_response):
    placed = make_authorization_response(challenge, "1, 1", search_from_block=90)
    unplaced = make_authorization_response(challenge, "2, 2")
    assert authorization_log_filter(placed, to_block=200)["fromBlock"] == 90
    assert authorization_log_filter(unplaced, to_block=200)["fromBlock"] == challenge.anchor.block_number == 7
    # A node whose head is below the claim's start is asked for an empty range, not an invalid one.
    assert authorization_log_filter(placed, to_block=50)["fromBlock"] == 50
