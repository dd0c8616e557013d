"""verify_challenge.py against what an operator could slip past a verifier with one comparison off
(docs/protocol.md section 6), each found unpinned by the mutation run of the script
(docs/reliability.md, the run of verify_challenge.py): payouts recorded with a
failed or an unknown transaction, the staked sum changed alone, a false rejection code behind the
demo flag, an unclaimed payment listed at another log, the registry the player names; and the
honest cases at the same places (a payout in the resolution's own second, a claim whose block
left the chain before resolution, a demonstration challenge's checks)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db.models import F
from web3 import Web3

from chain.contracts import contract_at
from chain.indexer import payments_index
from chain.models import Payment
from chain.reorgs import confirmed_recheck
from chain.verification import payment_verify
from challenges.models import Challenge, Payout, PayoutKind, PayoutStatus
from challenges.services import challenge_stake_moved
from config.public_cache import public_answers_mark_stale
from responses.demo import seed_demo
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES
from responses.services import guess_fields

from .conftest import deploy_registry, post_claim
from .verifier_support import assert_differs, mine_pending, pay, resolve, run_verifier, send_unmined, verify

pytestmark = pytest.mark.django_db(transaction=True)


def from_the_treasury(chain, *, to: str, units: int) -> dict:
    """A USDC transfer from the treasury (an unlocked anvil account here), as a transaction to send."""
    usdc = contract_at(chain.w3, "TestUSDC", chain.usdc)
    data = usdc.encode_abi("transfer", args=[Web3.to_checksum_address(to), units])
    return {"from": chain.treasury, "to": chain.usdc, "data": data}


def test_payouts_recorded_with_a_failed_or_unknown_transaction_differ_and_one_in_the_resolution_second_is_paid(
    chain, played, live_server, settings
):
    settings.OPERATIONS_ADDRESS = chain.deployer  # the operations share sent, not kept in the treasury
    challenge = resolve(chain, played.challenge)
    challenge.refresh_from_db()
    assert challenge.resolved_at is not None
    resolved_second = int(challenge.resolved_at.timestamp())
    payouts = {p.kind: p for p in Payout.objects.filter(challenge=challenge)}
    operations = payouts[PayoutKind.OPERATIONS]
    # Paid in a block of the very second the challenge was resolved: after resolution, as the rule says.
    paid = send_unmined(chain, from_the_treasury(chain, to=operations.address, units=3_000_000))
    mine_pending(chain, at=resolved_second)
    assert chain.w3.eth.get_block("latest")["timestamp"] == resolved_second
    # More than the treasury holds: mined, and reverted.
    failed = chain.send({**from_the_treasury(chain, to=played.right.submitter_address, units=10**15), "gas": 200_000})
    assert chain.w3.eth.get_transaction_receipt(failed)["status"] == 0
    chain.mine(2)
    unknown = "0x" + "ee" * 32
    for kind, tx_hash in ((PayoutKind.EARLIEST, failed), (PayoutKind.HIGHEST, unknown), (PayoutKind.OPERATIONS, paid)):
        Payout.objects.filter(pk=payouts[kind].pk).update(status=PayoutStatus.PAID, transaction_hash=tx_hash)

    result = verify(live_server, chain, challenge)
    assert_differs(
        result,
        f"the earliest payout's transaction {failed} failed",
        f"the highest payout's transaction {unknown} is not on this chain",
    )
    assert f"Payout operations: 3.000000 USDC to {operations.address.lower()}: paid in {paid}" in result.stdout


def test_the_staked_sum_changed_alone(chain, played, live_server):
    """The count still 3, the pot shown one USDC larger than the three stakes add up to."""
    resolve(chain, played.challenge)
    Challenge.objects.filter(pk=played.challenge.pk).update(staked_sum=F("staked_sum") + Decimal("1"))
    assert_differs(verify(live_server, chain, played.challenge), "3 responses stake 15.000000 USDC; the site shows 3")


def test_demo_switched_on_for_an_anchored_challenge_with_a_claim_rejected_by_a_false_code(chain, played, live_server):
    """The wrong guess dropped from the pot before resolution as `late` (its payment was in time),
    the challenge marked a demonstration: anchored, its rejected claims are re-checked all the same."""
    flipped = played.wrong
    Response.objects.filter(pk=flipped.pk).update(
        status=ResponseStatus.REJECTED, rejection_code="late", rejection_reason=REASON_SENTENCES["late"]
    )
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-flipped.submission_stake, count=-1)
    Challenge.objects.filter(pk=played.challenge.pk).update(is_demo=True)
    resolve(chain, played.challenge)
    assert_differs(
        verify(live_server, chain, played.challenge),
        f"rejected claim {flipped.pk} ({flipped.transaction_hash}): rejected late, but its payment passes every rule",
    )


def test_an_unclaimed_payment_listed_at_another_log(chain, draft, played, live_server):
    lost = draft(challenge=played.challenge, stake="1.5", address=chain.other)
    lost_tx = pay(chain, lost)
    chain.mine(2)
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, played.challenge)
    assert verify(live_server, chain, played.challenge).returncode == 0
    Payment.objects.filter(transaction_hash=lost_tx).update(log_index=F("log_index") + 1)
    public_answers_mark_stale()
    log_index = Payment.objects.get(transaction_hash=lost_tx).log_index
    assert_differs(
        verify(live_server, chain, played.challenge),
        f"unclaimed payment {lost_tx} log {log_index}: no such transfer to the treasury naming challenge",
    )


def test_the_registry_the_player_names_is_the_one_read(chain, played, live_server):
    """`--registry` holds the site to a registry the player trusts, whatever the site's page names:
    this challenge was never anchored in another one."""
    resolve(chain, played.challenge)
    other = deploy_registry(chain.w3, deployer=chain.deployer)
    result = run_verifier(live_server.url, "--challenge", str(played.challenge.pk), rpc=chain.url, registry=other)
    assert_differs(result, f"challenge {played.challenge.pk} has no anchor in the registry {other.lower()}")


def test_a_claim_whose_block_left_the_chain_before_resolution_is_rejected_reorged(
    chain, draft, played, live_server, settings
):
    """Confirmed, then its block dropped and the transaction never back (chain/verification.py):
    `reorged`, which the verifier accepts for a payment the chain does not hold."""
    snapshot = chain.snapshot()
    d = draft(challenge=played.challenge, stake="2")
    claim = post_claim(d, pay(chain, d))
    chain.mine(1)
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    chain.revert(snapshot)
    chain.mine(4)
    assert confirmed_recheck() == [claim.pk]
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 0
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == ("rejected", "reorged")
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout


def test_a_demonstration_challenge_is_still_checked_where_it_can_be(chain, live_server):
    """Unanchored, a demonstration guarantees nothing (its claims carry made-up hashes), but its
    reveal must open its published hash, its rejected claims are said not re-checked, and a payout
    shown with a transaction cannot pass without a node to read it."""
    seed_demo()
    demo = Challenge.objects.filter(is_demo=True, status="resolved").order_by("id").first()
    assert demo is not None
    address = "0x" + "a1" * 20
    Response.objects.create(
        challenge=demo,
        **guess_fields(challenge_id=demo.pk, text="1, 1", submitter_address=address),
        submission_stake=Decimal("2"),
        transaction_hash="0x" + "d1" * 32,
        submitter_address=address,
        status=ResponseStatus.REJECTED,
        rejection_code="amount_mismatch",
        rejection_reason=REASON_SENTENCES["amount_mismatch"],
        is_demo=True,
    )
    result = run_verifier(live_server.url, "--challenge", str(demo.pk), rpc=chain.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 rejected claims and 0 unclaimed payments: not re-checked" in result.stdout

    payout = Payout.objects.filter(challenge=demo).order_by("id").first()
    assert payout is not None
    Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.PAID, transaction_hash="0x" + "d2" * 32)
    public_answers_mark_stale()
    result = run_verifier(live_server.url, "--challenge", str(demo.pk))
    assert_differs(result, "cannot be checked without --rpc")

    Challenge.objects.filter(pk=demo.pk).update(solution_sha256="00" * 32)
    public_answers_mark_stale()
    result = run_verifier(live_server.url, "--challenge", str(demo.pk))
    assert_differs(result, "the revealed solution and salt do not hash to the published solution SHA-256")


def test_an_unanchored_challenge_paid_by_a_claim_and_by_nobody(chain, draft, make_challenge, live_server):
    """Never open, its terms not on chain: the claimed payment is `early`, and the one no claim
    names and the site does not list is reported beside the missing anchor (a report, not a
    traceback: the window's anchored bound is read only when there is an anchor)."""
    challenge = make_challenge(anchored=False)
    claimed, silent = draft(challenge=challenge, stake="2"), draft(challenge=challenge, stake="1.5")
    claimed_tx, silent_tx = pay(chain, claimed), pay(chain, silent)
    chain.mine(2)
    Response.objects.create(  # no claim can be posted on a challenge that is not open: the row verification leaves
        challenge=challenge,
        **guess_fields(
            challenge_id=challenge.pk, text=claimed.text, submitter_address=claimed.address, salt=claimed.salt
        ),
        submission_stake=claimed.stake,
        transaction_hash=claimed_tx,
        submitter_address=claimed.address,
        status=ResponseStatus.REJECTED,
        rejection_code="early",
        rejection_reason=REASON_SENTENCES["early"],
    )
    resolve(chain, challenge)
    assert_differs(
        verify(live_server, chain, challenge),
        f"challenge {challenge.pk} has no anchor in the registry",
        f"payment {silent_tx} from {silent.address.lower()} of 1.500000 USDC in block",
    )
