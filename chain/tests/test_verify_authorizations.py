"""Both verifiers, verify_challenge.py (run as a player runs it) and the page's (frontend/src/lib/
verify-outcomes.ts, run by node on the same site and chain), on a challenge paid by direct transfers
and by signed authorizations (chain/tests/mixed_stakes.py; docs/protocol.md sections 2a and 5). The
honest challenge is reproduced by both; each edit a dishonest operator could make to a stake paid
by authorization after players paid must end in a DIFFERENCE in both, naming what failed. The edits
are UPDATEs, INSERTs and DELETEs behind the services, as in chain/tests/test_verify_exceptions.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from challenges.models import Challenge
from challenges.services import challenge_stake_moved
from config.public_cache import public_answers_mark_stale
from responses.models import PaymentMethod, Response, StakeAuthorization

from .mixed_stakes import Mixed, both, build_mixed
from .verifier_support import assert_differs

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mixed(chain, draft, make_challenge, third, make_authorization_response) -> Mixed:
    return build_mixed(chain, draft, make_challenge, third, make_authorization_response)


def test_an_honest_challenge_paid_by_transfers_and_authorizations_is_reproduced_by_both(chain, mixed, live_server):
    claims, challenge = mixed.claims, mixed.challenge
    result, page = both(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.last_line == "6 of 6 outcomes reproduced"
    assert "2 of 2 rejected claims: reason code re-checked" in result.stdout
    # The direct transfers and the two authorizations relayed straight to the token name the
    # challenge; the batch (through a contract), the bare call and the forwarded one name none.
    assert f"4 payments to the treasury name challenge {challenge.pk}" in result.stdout
    assert "4 counted, 0 rejected claims, 0 listed unclaimed, 0 outside the open window" in result.stdout
    assert page["ok"] is True, page["differences"]
    assert (page["reproduced"], page["outcomes"]) == (6, 6)
    assert sorted(p["transactionHash"] for p in page["payments"]) == sorted(
        {claims[name].transaction_hash for name in ("right", "wrong", "relayed", "by_stranger")}
    )
    assert {p["accountedAs"] for p in page["payments"]} == {"confirmed"}
    assert {r["id"]: r["expected"] for r in page["rejected"]} == {
        claims["expired"].pk: "authorization_expired",
        claims["cancelled"].pk: "authorization_cancelled",
    }
    # Sent by the relayer and by a stranger, not by their payers: the signature is the proof.
    relayed = chain.w3.eth.get_transaction(claims["relayed"].transaction_hash)
    assert relayed["from"] == mixed.accounts["relayer"] != claims["relayed"].submitter_address
    assert chain.w3.eth.get_transaction(claims["by_stranger"].transaction_hash)["from"] == mixed.accounts["stranger"]
    assert claims["batch_a"].transaction_hash == claims["batch_b"].transaction_hash == mixed.txs["batch"]


def edit(model=Response, **where) -> Callable[..., None]:
    """An operator's UPDATE of the rows `where` names (then the public answers are stale, as a
    service's write makes them)."""

    def update(**values) -> None:
        model.objects.filter(**where).update(**values)
        public_answers_mark_stale()

    return update


def moved(world: Mixed, stake: str, count: int) -> None:
    """The challenge's sums moved with the edit, so that they add up and only the edit can show."""
    challenge_stake_moved(challenge_id=world.challenge.pk, stake=Decimal(stake), count=count)


def address_changed(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["relayed"]
    stranger = chain.w3.eth.accounts[9]
    edit(pk=claim.pk)(submitter_address=stranger)
    return (
        f"its transaction holds no AuthorizationUsed of {stranger.lower()} for the commitment of this guess, address "
        f"and salt (it uses the authorization of {claim.submitter_address.lower()})"
    ), f"response {claim.pk}"


def stake_changed(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["relayed"]
    edit(pk=claim.pk)(submission_stake=Decimal("7.000001"))  # one token unit more than the Transfer moved
    moved(world, "0.000001", 0)
    # The page writes 7 USDC where the script writes 7.000000.
    return "USDC, the site shows a stake of 7.000001", f"response {claim.pk}"


def text_changed(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["relayed"]
    edit(pk=claim.pk)(submission_text="29.9796, 31.1344")
    return f"its transaction holds no AuthorizationUsed of {claim.submitter_address.lower()}", f"response {claim.pk}"


def salt_changed(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["by_stranger"]
    edit(pk=claim.pk)(submission_salt="cd" * 32)
    return f"its transaction holds no AuthorizationUsed of {claim.submitter_address.lower()}", f"response {claim.pk}"


def relabelled_transfer(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["relayed"]
    edit(pk=claim.pk)(payment_method=PaymentMethod.TRANSFER)
    StakeAuthorization.objects.filter(response=claim).delete()
    return (
        "the site shows it paid by transfer, but its transaction uses this guess's authorization: it was paid by "
        "authorization"
    ), f"response {claim.pk}"


def relabelled_authorization(chain, world: Mixed) -> tuple[str, str]:
    claim = world.claims["right"]
    StakeAuthorization.objects.create(response=claim, valid_after=0, valid_before=2**40, signature="0x")
    edit(pk=claim.pk)(payment_method=PaymentMethod.AUTHORIZATION)
    return "the site shows it paid by authorization, but it was paid by a direct transfer", f"response {claim.pk}"


def log_moved(chain, world: Mixed) -> tuple[str, str]:
    """Two authorizations in one transaction: the first response given the second one's Transfer."""
    first, second = world.claims["batch_a"], world.claims["batch_b"]
    assert first.log_index is not None
    assert second.log_index == first.log_index + 2  # AuthorizationUsed, Transfer, AuthorizationUsed, Transfer
    edit(pk=first.pk)(log_index=second.log_index)
    return f"log {first.log_index}, the site shows", f"response {first.pk}"


def another_payers_authorization(chain, world: Mixed) -> tuple[str, str]:
    """The claim whose authorization was never used, counted on a relayed payment that carries
    another payer's authorization (that payment's own response deleted, so it is counted once)."""
    expired, paid = world.claims["expired"], world.claims["by_stranger"]
    Response.objects.filter(pk=paid.pk).delete()
    position = {f: getattr(paid, f) for f in ("block_number", "block_hash", "transaction_index", "log_index")}
    edit(pk=expired.pk)(
        status="confirmed",
        rejection_code="",
        rejection_reason="",
        transaction_hash=paid.transaction_hash,
        submission_timestamp=paid.submission_timestamp,
        **position,
    )
    moved(world, "-1", 0)  # 2 USDC out, 1 in: the count stays
    return (
        f"its transaction holds no AuthorizationUsed of {expired.submitter_address.lower()} for the commitment of this "
        f"guess, address and salt (it uses the authorization of {paid.submitter_address.lower()})"
    ), f"response {expired.pk}"


def cancelled_counted(chain, world: Mixed) -> tuple[str, str]:
    """The cancelled authorization's claim counted, on the transaction that cancelled it."""
    claim, tx_hash = world.claims["cancelled"], world.txs["cancel"]
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
    block = chain.w3.eth.get_block(receipt["blockNumber"])
    edit(pk=claim.pk)(
        status="confirmed",
        rejection_code="",
        rejection_reason="",
        transaction_hash=tx_hash,
        block_number=receipt["blockNumber"],
        block_hash="0x" + bytes(receipt["blockHash"]).hex(),
        transaction_index=receipt["transactionIndex"],
        log_index=receipt["logs"][0]["logIndex"] + 1,
        submission_timestamp=datetime.fromtimestamp(block["timestamp"], tz=UTC),
    )
    moved(world, "1", 1)
    return f"its transaction holds no AuthorizationUsed of {claim.submitter_address.lower()}", f"response {claim.pk}"


@pytest.mark.parametrize(
    "operator",
    [
        address_changed,
        stake_changed,
        text_changed,
        salt_changed,
        relabelled_transfer,
        relabelled_authorization,
        log_moved,
        another_payers_authorization,
        cancelled_counted,
    ],
)
def test_an_authorization_response_edited_after_players_paid_differs_in_both(chain, mixed, live_server, operator):
    needle, who = operator(chain, mixed)
    challenge = Challenge.objects.get(pk=mixed.challenge.pk)
    result, page = both(live_server, chain, challenge)
    assert_differs(result, needle)
    assert any(line.startswith(f"DIFFERENCE {who} (") and needle in line for line in result.differences()), (
        result.stdout
    )
    assert page["ok"] is False
    assert any(line.startswith(f"{who}: ") and needle in line for line in page["differences"]), page["differences"]
