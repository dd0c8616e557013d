"""verify_challenge.py against a dishonest operator (docs/protocol.md section 6): the terms are on
chain before anyone stakes, so whatever the operator edits in the database after players paid, the
verifier, run as a player runs it (chain/tests/verifier_support.py), ends in a DIFFERENCE and exit 1.
And an honest challenge with every kind of claim and payment (confirmed, rejected for each reason,
unclaimed, a paid prize) is reproduced in full.

Each case asserts the DIFFERENCE line of the check that must catch it, so that a verifier without
that check fails its test (scripts/mutate.py runs these against mutants of the script)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.contracts import contract_at, mint
from chain.models import Payment
from chain.payouts import payout_verify
from chain.services import payment_verify, payments_index
from challenges.commitments import new_salt, solution_commitment
from challenges.models import Challenge, ChallengeAnchor, Payout, PayoutKind, PayoutStatus
from challenges.payouts import payout_record_transaction
from challenges.services import challenge_close, challenge_stake_moved
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES
from responses.resolution import challenge_resolve

from .conftest import ANVIL_CHAIN_ID, post_claim
from .verifier_support import (
    mine_pending,
    run_verifier,
    send_unmined,
    treasury_transfer,
    wait_for_wall_clock_past_head,
)

pytestmark = pytest.mark.django_db(transaction=True)

GIZA = "29.979175, 31.134258"


@dataclass
class Played:
    challenge: Challenge
    right: Response  # correct, the earliest
    also_right: Response  # correct, the highest stake
    wrong: Response
    drafts: dict

    def refresh(self) -> Played:
        self.challenge.refresh_from_db()
        for claim in (self.right, self.also_right, self.wrong):
            claim.refresh_from_db()
        return self


def pay(chain, d, **overrides) -> str:
    return chain.pay(chain.stake_calldata(d, **overrides), sender=d.address)


def confirm(chain, *claims) -> None:
    chain.mine(2)
    for claim in claims:
        assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED


@pytest.fixture
def third(chain):
    account = chain.w3.eth.accounts[4]
    mint(chain.w3, chain.usdc, account, 1_000 * 10**6, sender=chain.deployer)
    return account


@pytest.fixture
def played(chain, draft, make_challenge, third) -> Played:
    """Three players paid on an anchored challenge (threshold 100 m): two correct, one wrong."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    assert ChallengeAnchor.objects.get(challenge=challenge).status == "confirmed"
    drafts = {
        "right": draft(challenge=challenge, stake="5", text="29.9792, 31.1343"),  # about 5 m
        "also_right": draft(challenge=challenge, stake="7", text="29.9795, 31.1344", address=chain.other),  # ~39 m
        "wrong": draft(challenge=challenge, stake="3", text="30.0444, 31.2357", address=third),  # 12 km
    }
    claims = {name: post_claim(d, pay(chain, d)) for name, d in drafts.items()}
    confirm(chain, *claims.values())
    return Played(challenge, drafts=drafts, **claims).refresh()


def resolve(chain, challenge) -> Challenge:
    wait_for_wall_clock_past_head(chain)
    return challenge_resolve(challenge=Challenge.objects.get(pk=challenge.pk))


def verify(live_server, chain, challenge, *args) -> object:
    result = run_verifier(
        live_server.url, "--challenge", str(challenge.pk), *args, rpc=chain.url, registry=chain.registry
    )
    print(result.stdout, result.stderr)  # for a reader of `pytest -s`
    return result


def assert_differs(result, *expected: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.last_line.startswith("DIFFERENCES FOUND: "), result.stdout
    text = "\n".join(result.differences())
    for needle in expected:
        assert needle in text, (needle, result.stdout)


def pay_out(chain, payout: Payout, *, to: str | None = None, units: int | None = None) -> str:
    tx_hash = treasury_transfer(
        chain, to=to or payout.address, units=units if units is not None else int(payout.amount * 10**6)
    )
    chain.mine(2)
    return tx_hash


# --- The honest challenge, reproduced in full ---------------------------------------------------


def test_an_honest_challenge_with_every_kind_of_claim_and_payment_is_reproduced(
    chain, draft, played, live_server, third
):
    challenge = played.challenge
    # Rejected, the payer's own: the stake claimed is not what was paid.
    short = draft(challenge=challenge, stake="4")
    short_claim = post_claim(short, pay(chain, short, amount_units=3_000_000))
    # A stranger's claim on a payer's transaction (unreadable at the POST, so stored and judged later).
    paid = draft(challenge=challenge, stake="2", address=third)
    paid_tx = pay(chain, paid)
    squatter = draft(challenge=challenge, stake="2", text="1, 1", address=third)
    squatted = post_claim(squatter, paid_tx, chain_readable=False)
    paid_claim = post_claim(paid, paid_tx)
    # Paid in the window, never claimed: the indexer puts it in the ledger.
    lost = draft(challenge=challenge, stake="1.5", address=chain.other)
    pay(chain, lost)
    chain.mine(2)
    for claim, status in ((short_claim, "rejected"), (squatted, "rejected"), (paid_claim, "confirmed")):
        assert payment_verify(response_id=claim.pk).status == status
    # Claimed while open, mined after the close: late.
    late = draft(challenge=challenge, stake="2.5")
    late_tx = send_unmined(chain, {"from": chain.player, "to": chain.usdc, "data": chain.stake_calldata(late)})
    late_claim = post_claim(late, late_tx)
    wait_for_wall_clock_past_head(chain)
    closed = challenge_close(challenge=challenge)
    mine_pending(chain, at=int(closed.closed_at.timestamp()) + 2)
    chain.mine(2)
    assert payment_verify(response_id=late_claim.pk).code == "late"
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, challenge)
    # The earliest prize paid and verified on chain; the highest still due.
    earliest = Payout.objects.get(challenge=challenge, kind=PayoutKind.EARLIEST)
    payout_tx = pay_out(chain, earliest)
    payout_record_transaction(payout=earliest, transaction_hash=payout_tx, user=None)
    assert payout_verify(payout_id=earliest.pk) == PayoutStatus.PAID
    assert Response.objects.get(pk=squatted.pk).rejection_code == "commitment_mismatch"
    assert Response.objects.get(pk=short_claim.pk).rejection_code == "amount_mismatch"
    # Paid after the challenge was resolved, before the indexer saw it: reported, not counted.
    too_late = draft(challenge=challenge, stake="1", address=third)
    too_late_tx = pay(chain, too_late)
    chain.mine(2)

    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.last_line == "4 of 4 outcomes reproduced"
    assert not result.differences()
    assert "3 of 3 rejected claims: reason code re-checked" in result.stdout
    assert "8 payments to the treasury name challenge" in result.stdout
    assert "4 counted, 2 rejected claims, 1 listed unclaimed, 1 outside the open window" in result.stdout
    assert f"Not counted: payment {too_late_tx} from {third.lower()} of 1.000000 USDC" in result.stdout
    assert f"Payout earliest: {earliest.amount:.6f} USDC to {earliest.address.lower()}: paid in {payout_tx}" in (
        result.stdout
    )
    assert "Payout highest:" in result.stdout and ": due (due)" in result.stdout
    assert f"Terms anchored in block {challenge.anchor.block_number}" in result.stdout


def test_every_rejection_reason_is_rechecked_against_the_chain(chain, draft, make_challenge, live_server, settings):
    """One claim rejected for each reason the chain can show, by the server's own verification; the
    verifier re-derives each code from the chain (the first rule the payment fails)."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    poor = chain.w3.eth.accounts[5]  # holds no USDC: the transfer reverts
    claims = {}

    def claim(code, d, tx, readable=True):
        claims[code] = post_claim(d, tx, chain_readable=readable)

    d = draft(challenge=challenge, address=poor)
    claim("tx_failed", d, pay(chain, d))
    d = draft(challenge=challenge)
    claim("wrong_token", d, chain.pay(chain.stake_calldata(d), to=chain.other_token))
    d = draft(challenge=challenge)
    # transferFrom on USDC itself: direct and successful, but not the stake transfer (rule 5).
    usdc = contract_at(chain.w3, "TestUSDC", chain.usdc)
    chain.w3.eth.wait_for_transaction_receipt(
        usdc.functions.approve(chain.player, 2_500_000).transact({"from": chain.player})
    )
    pulled = usdc.functions.transferFrom(chain.player, chain.treasury, 2_500_000).transact({"from": chain.player})
    chain.w3.eth.wait_for_transaction_receipt(pulled)
    claim("unsupported_transaction/another function", d, "0x" + bytes(pulled).hex())
    d = draft(challenge=challenge)
    claim("wrong_sender", d, chain.pay(chain.stake_calldata(d), sender=chain.other), readable=False)
    d = draft(challenge=challenge)
    claim("wrong_recipient", d, pay(chain, d, treasury=chain.other))
    d = draft(challenge=challenge)
    claim("amount_mismatch", d, pay(chain, d, amount_units=2_500_001))
    d = draft(challenge=challenge)
    claim("commitment_mismatch", d, pay(chain, d, commitment="cd" * 32), readable=False)
    d = draft(challenge=challenge)
    claim("challenge_mismatch", d, pay(chain, d, challenge_id=999_999), readable=False)
    d = draft(challenge=challenge)
    forwarder = contract_at(chain.w3, "Forwarder", chain.forwarder)
    routed = forwarder.functions.forward(chain.usdc, bytes.fromhex(chain.stake_calldata(d)[2:])).transact(
        {"from": chain.player, "gas": 300_000}
    )
    chain.w3.eth.wait_for_transaction_receipt(routed)
    claim("unsupported_transaction", d, "0x" + bytes(routed).hex())
    d = draft(challenge=challenge)
    claim("not_found", d, "0x" + "ab" * 32)
    Response.objects.filter(pk=claims["not_found"].pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS + 1)
    )
    chain.mine(2)
    for key, response in claims.items():
        outcome = payment_verify(response_id=response.pk)
        assert (outcome.status, outcome.code) == ("rejected", key.split("/")[0])
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, challenge)

    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(claims)} of {len(claims)} rejected claims: reason code re-checked" in result.stdout
    # Not the payer's claims: those payments are the site's to list as unclaimed, and it does.
    assert "2 listed unclaimed" in result.stdout
    assert result.last_line == "0 of 0 outcomes reproduced"

    # Each published code changed to the next one's: each is named.
    codes = [key.split("/")[0] for key in claims]
    false = {key: codes[(i + 1) % len(codes)] for i, key in enumerate(claims)}
    for key, response in claims.items():
        Response.objects.filter(pk=response.pk).update(
            rejection_code=false[key], rejection_reason=REASON_SENTENCES[false[key]]
        )
    result = verify(live_server, chain, challenge)
    assert_differs(
        result,
        *(
            f"rejected claim {r.pk} ({r.transaction_hash}): rejected {false[key]}, "
            f"the first rule its payment fails is {key.split('/')[0]}"
            for key, r in claims.items()
        ),
    )


# --- The dishonest operator ---------------------------------------------------------------------


def test_the_solution_replaced_by_a_far_away_point(chain, played, live_server):
    far, salt = "-33.856784, 151.215296", new_salt()
    Challenge.objects.filter(pk=played.challenge.pk).update(
        solution=far,
        solution_salt=salt,
        solution_sha256=solution_commitment(challenge_id=played.challenge.pk, text=far, salt=salt),
    )
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        "the site's solution SHA-256",
        "the revealed solution and salt do not open the anchored solution commitment",
    )


def test_the_threshold_lowered_to_zero(chain, played, live_server):
    Challenge.objects.filter(pk=played.challenge.pk).update(proximity_threshold_m=0)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    # Scored with the anchored 100 m: both correct guesses are correct, whatever the site says.
    assert_differs(
        result,
        "the site's threshold is 0 m, the anchored threshold 100 m",
        f"DIFFERENCE response {played.right.pk} ({played.right.transaction_hash}): correct is True, "
        "the site shows False",
        f"the earliest winner is response {played.right.pk}",
    )


def test_a_correct_claim_deleted_with_its_ledger_row(chain, played, live_server):
    gone = played.also_right
    Payment.objects.filter(transaction_hash=gone.transaction_hash).delete()
    Response.objects.filter(pk=gone.pk).delete()
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-gone.submission_stake, count=-1)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result, f"payment {gone.transaction_hash} from {gone.submitter_address.lower()} of 7.000000 USDC in block"
    )
    assert "and is neither counted, rejected nor listed unclaimed" in result.stdout


def test_a_correct_claim_flipped_to_rejected_with_a_false_code(chain, played, live_server):
    flipped = played.right
    Response.objects.filter(pk=flipped.pk).update(
        status=ResponseStatus.REJECTED, rejection_code="late", rejection_reason=REASON_SENTENCES["late"]
    )
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-flipped.submission_stake, count=-1)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"rejected claim {flipped.pk} ({flipped.transaction_hash}): rejected late, but its payment passes every rule",
    )


def test_the_opening_time_moved(chain, played, live_server):
    Challenge.objects.filter(pk=played.challenge.pk).update(
        start_timestamp=played.challenge.start_timestamp - timedelta(hours=1)
    )
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    anchored = played.challenge.anchor.opens_at
    assert_differs(result, f"the anchored {anchored}")
    assert "the site's opening time is" in result.stdout


def test_the_poem_edited_after_publishing(chain, played, live_server):
    resolve(chain, played.challenge)
    Challenge.objects.filter(pk=played.challenge.pk).update(poem_text="<p>Another poem, with another place</p>")
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the title, poem and instructions the site shows are not the anchored terms")


@pytest.mark.parametrize("how", ["less", "another_address"])
def test_a_payout_recorded_paid_with_a_transaction_that_does_not_pay_it(chain, played, live_server, how):
    resolve(chain, played.challenge)
    payout = Payout.objects.get(challenge=played.challenge, kind=PayoutKind.EARLIEST)
    units = int(payout.amount * 10**6)
    if how == "less":
        tx_hash = pay_out(chain, payout, units=units - 1)
    else:
        tx_hash = pay_out(chain, payout, to=chain.deployer)
    Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.PAID, transaction_hash=tx_hash)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"the earliest payout's transaction {tx_hash} holds no USDC Transfer of exactly {payout.amount:.6f} "
        f"from the treasury to {payout.address.lower()}",
    )
    assert "Payout earliest:" in result.stdout and ": different" in result.stdout


def test_a_payout_paid_before_resolution_is_not_this_prize(chain, played, live_server):
    """A transfer of the right amount to the winner made before the challenge was resolved (any
    earlier transfer) is not the payment of this prize."""
    payout_tx = treasury_transfer(chain, to=played.right.submitter_address, units=6_000_000)  # 40 % of 15
    mined = chain.w3.eth.get_block("latest")["timestamp"]
    while time.time() < mined + 1:  # resolved in a later second than the transfer
        time.sleep(0.1)
    resolve(chain, played.challenge)
    payout = Payout.objects.get(challenge=played.challenge, kind=PayoutKind.EARLIEST)
    assert payout.amount == Decimal("6")
    Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.PAID, transaction_hash=payout_tx)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"the earliest payout's transaction {payout_tx} was mined at")


def test_a_payout_to_another_address_than_the_rules_give(chain, played, live_server):
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.HIGHEST).update(address=chain.deployer)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the highest payout is 6.000000 USDC to ")


def test_the_operations_share_sent_when_the_site_keeps_it(chain, played, live_server, settings):
    settings.OPERATIONS_ADDRESS = ""
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.OPERATIONS).update(status=PayoutStatus.DUE)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the operations share stays in the treasury; the site shows it due")


def test_demo_switched_on_for_an_anchored_challenge_with_a_made_up_claim(chain, played, live_server):
    from responses.services import guess_fields

    challenge = played.challenge
    made_up = Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text=GIZA, submitter_address=chain.deployer),
        submission_stake=Decimal("50"),
        transaction_hash="0x" + "d0" * 32,
        submitter_address=chain.deployer,
        status=ResponseStatus.CONFIRMED,
        block_number=1,
        transaction_index=0,
        log_index=0,
        submission_timestamp=challenge.start_timestamp,
        is_demo=True,
    )
    challenge_stake_moved(challenge_id=challenge.pk, stake=made_up.submission_stake, count=1)
    Challenge.objects.filter(pk=challenge.pk).update(is_demo=True)
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"DIFFERENCE response {made_up.pk} (0x{'d0' * 32}): the transaction is not on this chain")
    assert "demonstration" not in result.stdout  # anchored: checked in full, whatever isDemo says


def test_a_transaction_index_changed_in_the_chain_position(chain, played, live_server):
    resolve(chain, played.challenge)
    target = played.wrong
    Response.objects.filter(pk=target.pk).update(transaction_index=target.transaction_index + 1)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {target.pk} ({target.transaction_hash}): chain position is block {target.block_number} "
        f"index {target.transaction_index} log {target.log_index}, the site shows block {target.block_number} "
        f"index {target.transaction_index + 1} log {target.log_index}",
    )


def test_the_close_moved_before_a_counted_payment(chain, played, live_server):
    resolve(chain, played.challenge)
    mined = int(played.wrong.submission_timestamp.timestamp())
    Challenge.objects.filter(pk=played.challenge.pk).update(closed_at=datetime.fromtimestamp(mined - 1, tz=UTC))
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {played.wrong.pk} ({played.wrong.transaction_hash}): mined at {mined}, outside the "
        f"open window",
    )


def test_an_unclaimed_listing_that_is_not_on_chain(chain, played, live_server):
    resolve(chain, played.challenge)
    Payment.objects.create(
        transaction_hash="0x" + "e1" * 32,
        log_index=0,
        block_number=played.right.block_number,
        block_hash="0x" + "00" * 32,
        transaction_index=0,
        from_address=chain.other,
        to_address=chain.treasury,
        amount_units=Decimal(1_000_000),
        commitment="ab" * 32,
        challenge_id_word=Decimal(played.challenge.pk),
    )
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"unclaimed payment 0x{'e1' * 32} log 0: no such transfer to the treasury")


def test_the_site_shows_another_anchor_than_the_first_on_chain(chain, played, live_server):
    resolve(chain, played.challenge)
    ChallengeAnchor.objects.filter(challenge=played.challenge).update(terms_sha256="00" * 32)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the anchor the site shows is not the first anchor on chain")


def test_an_unanchored_challenge_that_is_not_a_demo(chain, draft, make_challenge, live_server):
    """Never open: its terms are not on chain. A payment naming it is `early` (chain/services.py), and
    the verifier re-derives that code, beside the difference that there is no anchor."""
    from responses.services import guess_fields

    challenge = make_challenge(anchored=False)
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)
    chain.mine(2)
    # No claim can be posted on a challenge that is not open: the row as verification would leave it.
    early = Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text=d.text, submitter_address=d.address, salt=d.salt),
        submission_stake=d.stake,
        transaction_hash=tx_hash,
        submitter_address=d.address,
        status=ResponseStatus.REJECTED,
        rejection_code="early",
        rejection_reason=REASON_SENTENCES["early"],
    )
    assert early.commitment == d.commitment
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"challenge {challenge.pk} has no anchor in the registry {chain.registry.lower()}")
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout
    assert "rejected claim" not in "\n".join(result.differences())


def test_a_transfer_log_from_another_contract_is_no_transfer_log(chain, draft, make_challenge, live_server, settings):
    """The site's token emits its Transfer from another contract (FakeTransferToken): the server
    rejects the claim `no_transfer_log`, and the verifier, reading the same token from the page,
    re-derives it: only the token's own logs move money."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    settings.USDC_ADDRESS = chain.fake_token
    d = draft(challenge=challenge, stake="2.5")
    claim = post_claim(d, chain.pay(chain.stake_calldata(d), to=chain.fake_token))
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).code == "no_transfer_log"
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout


def test_a_site_without_a_registry(chain, played, live_server, settings):
    resolve(chain, played.challenge)
    settings.ANCHOR_REGISTRY_ADDRESS = ""
    result = run_verifier(live_server.url, "--challenge", str(played.challenge.pk), rpc=chain.url)
    assert_differs(result, "the site names no terms registry")


# --- A player's record --------------------------------------------------------------------------


def record_of(chain, played, name: str, tmp_path, **changes) -> str:
    d, claim, anchor = played.drafts[name], getattr(played, name), played.challenge.anchor
    record = {
        "challengeId": played.challenge.pk,
        "coordinates": d.text,
        "salt": d.salt,
        "stakeUsdc": str(d.stake),
        "chainId": ANVIL_CHAIN_ID,
        "submitterAddress": d.address,
        "transactionHash": claim.transaction_hash,
        "anchor": {
            "registry": anchor.registry_address,
            "transactionHash": anchor.transaction_hash,
            "blockNumber": anchor.block_number,
            "solutionSha256": played.challenge.solution_sha256,
            "termsSha256": anchor.terms_sha256,
        },
    }
    for key, value in changes.items():
        if key.startswith("anchor_"):
            record["anchor"][key.removeprefix("anchor_")] = value
        else:
            record[key] = value
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_a_record_of_a_counted_claim(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "right", tmp_path)
    # The record names the challenge and the registry: neither needs to be given.
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Your record: the anchor you saw is the anchor on chain" in result.stdout
    assert f"the payment had to count, and it is counted as response {played.right.pk}: correct" in result.stdout
    assert result.last_line == "3 of 3 outcomes reproduced"


def test_a_record_of_a_claim_the_site_dropped(chain, played, live_server, tmp_path):
    """The claim deleted, its stake out of the pot, its payment honestly listed as unclaimed: the
    challenge's own accounts add up, only the player's record shows the payment had to count."""
    dropped = played.right
    Response.objects.filter(pk=dropped.pk).delete()
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-dropped.submission_stake, count=-1)
    resolve(chain, played.challenge)
    assert verify(live_server, chain, played.challenge).returncode == 0
    path = record_of(chain, played, "right", tmp_path)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    assert_differs(
        result,
        f"your payment {dropped.transaction_hash} had to count, and the site does not count it (listed unclaimed)",
    )


def test_a_record_whose_anchor_is_not_the_one_on_chain(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "wrong", tmp_path, anchor_termsSha256="11" * 32)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url, registry=chain.registry)
    assert_differs(result, "the anchor you saw when paying is not the challenge's anchor on chain")
    assert "the payment had to count, and it is counted as response" in result.stdout


# --- Payments before the terms were on chain ------------------------------------------------------


def count_anyway(claim: Response, tx_hash: str, chain) -> Response:
    """The operator counts a payment the rules refuse: the row set confirmed with its chain position."""
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
    block = chain.w3.eth.get_block(receipt["blockNumber"])
    claim.refresh_from_db()
    if claim.status != ResponseStatus.CONFIRMED:
        Response.objects.filter(pk=claim.pk).update(
            status=ResponseStatus.CONFIRMED,
            rejection_code="",
            rejection_reason="",
            block_number=receipt["blockNumber"],
            block_hash="0x" + bytes(receipt["blockHash"]).hex(),
            transaction_index=receipt["transactionIndex"],
            log_index=receipt["logs"][0]["logIndex"],
            submission_timestamp=datetime.fromtimestamp(block["timestamp"], tz=UTC),
        )
        challenge_stake_moved(challenge_id=claim.challenge_id, stake=claim.submission_stake, count=1)
    claim.refresh_from_db()
    return claim


def test_a_payment_mined_before_the_anchor_is_early_and_counting_it_differs(chain, draft, make_challenge, live_server):
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)  # published, its anchor queued
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)  # in a block before the anchor's
    anchor_on_chain(chain, challenge)
    claim = post_claim(d, tx_hash)
    chain.mine(2)
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == ("rejected", "early")
    resolve(chain, challenge)
    assert verify(live_server, chain, challenge).returncode == 0  # early, re-checked

    count_anyway(claim, tx_hash, chain)
    result = verify(live_server, chain, challenge)
    anchored = ChallengeAnchor.objects.get(challenge=challenge).block_number
    assert_differs(result, f"not after the anchor's block {anchored}")


def test_a_payment_before_the_anchored_opening_time_counted_anyway(chain, draft, make_challenge, live_server):
    """Anchored to open a minute later, paid at once, in a block after the anchor's: counting it differs."""
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)
    later = timezone.now().replace(microsecond=0) + timedelta(minutes=1)
    Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=later)
    ChallengeAnchor.objects.filter(challenge=challenge).update(opens_at=int(later.timestamp()))
    anchor_on_chain(chain, Challenge.objects.get(pk=challenge.pk))
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)
    claim = post_claim(d, tx_hash)
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).status == "rejected"
    count_anyway(claim, tx_hash, chain)
    Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=timezone.now() - timedelta(minutes=5))
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"before the anchored opening time {int(later.timestamp())}")


# --- More of what the operator could change -----------------------------------------------------


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ("sender", "sent from "),
        ("timestamp", "the site shows "),
        ("recipient", "not the treasury"),
        ("challenge", "the calldata names challenge 999999"),
        ("anchor_tx", "not the USDC contract"),
        ("confirmations", ", fewer than 100000"),
    ],
)
def test_a_counted_response_that_its_payment_does_not_back(chain, draft, played, live_server, what, expected):
    target = played.wrong
    args: list[str] = []
    if what == "sender":
        Response.objects.filter(pk=target.pk).update(submitter_address=chain.deployer)
        expected = f"sent from {target.submitter_address.lower()}, the site shows {chain.deployer}"
    elif what == "timestamp":
        Response.objects.filter(pk=target.pk).update(
            submission_timestamp=target.submission_timestamp - timedelta(seconds=1)
        )
        expected = f"the site shows {int(target.submission_timestamp.timestamp()) - 1}"
    elif what in ("recipient", "challenge"):
        d = played.drafts["wrong"]
        overrides = {"treasury": chain.other} if what == "recipient" else {"challenge_id": 999_999}
        other_tx = pay(chain, d, **overrides)
        chain.mine(2)
        Response.objects.filter(pk=target.pk).update(transaction_hash=other_tx)
    elif what == "anchor_tx":
        Response.objects.filter(pk=target.pk).update(transaction_hash=played.challenge.anchor.transaction_hash)
    else:
        args = ["--confirmations", "100000"]
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge, *args)
    assert_differs(result, f"DIFFERENCE response {target.pk} (")
    assert expected in "\n".join(result.differences()), result.stdout


def test_a_rejected_claims_published_salt_changed(chain, draft, played, live_server):
    short = draft(challenge=played.challenge, stake="4")
    claim = post_claim(short, pay(chain, short, amount_units=3_000_000))
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).code == "amount_mismatch"
    resolve(chain, played.challenge)
    Response.objects.filter(pk=claim.pk).update(submission_salt="ab" * 32)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"rejected claim {claim.pk} ({claim.transaction_hash}): its commitment is not that of")


def test_an_unclaimed_payment_listed_with_another_amount(chain, draft, played, live_server):
    lost = draft(challenge=played.challenge, stake="1.5", address=chain.other)
    lost_tx = pay(chain, lost)
    chain.mine(2)
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, played.challenge)
    assert verify(live_server, chain, played.challenge).returncode == 0
    Payment.objects.filter(transaction_hash=lost_tx).update(amount_units=Decimal(1_000_000))
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"unclaimed payment {lost_tx} log ")
    assert "of 1.500000 USDC, the site lists" in result.stdout


def test_a_missing_and_an_extra_payout(chain, played, live_server):
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.OPERATIONS).delete()
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the operations payout of 3.000000 USDC to ")
    assert "is missing" in result.stdout


def test_the_site_hides_the_anchor_of_an_anchored_challenge(chain, played, live_server):
    resolve(chain, played.challenge)
    ChallengeAnchor.objects.filter(challenge=played.challenge).update(status="failed")
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the site shows no anchor for an anchored challenge")


def test_the_site_shows_an_anchor_no_chain_holds(chain, make_challenge, live_server):
    from devtools.anchors import record_confirmed_anchor

    challenge = make_challenge(anchored=False)
    record_confirmed_anchor(challenge)
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, "the site shows an anchor in transaction 0x")


def test_a_record_with_another_guess_did_not_have_to_count(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "also_right", tmp_path, salt="cd" * 32)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    assert result.returncode == 0, result.stdout
    assert "Your record: the payment did not have to count: the first rule it fails is commitment_mismatch" in (
        result.stdout
    )
    assert "Your record: the site shows no claim of yours on this transaction" in result.stdout
    path = record_of(chain, played, "also_right", tmp_path, chainId=1)
    assert_differs(run_verifier(live_server.url, "--record", path, rpc=chain.url), "your record is for chain 1")


def test_an_unclaimed_payment_before_the_anchor_is_read_from_its_receipt(chain, draft, make_challenge, live_server):
    """The site lists an unclaimed payment mined before the anchor (outside the scan from the
    anchor's block): the verifier reads it from its receipt, finds it as listed, and differs on nothing."""
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)
    d = draft(challenge=challenge, stake="2")
    early_tx = pay(chain, d)
    anchor_on_chain(chain, challenge)
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout
    assert not result.differences()
    assert "0 payments to the treasury name challenge" in result.stdout
    Payment.objects.filter(transaction_hash=early_tx).update(from_address=chain.deployer)
    assert_differs(verify(live_server, chain, challenge), f"unclaimed payment {early_tx} log ")


def test_the_verifier_that_cannot_read_says_so_and_exits_2(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    down = run_verifier(live_server.url, "--challenge", str(played.challenge.pk), rpc="http://127.0.0.1:9")
    assert down.returncode == 2 and "could not verify" in down.stderr and down.stdout == ""
    missing = run_verifier(live_server.url, "--record", str(tmp_path / "none.json"), rpc=chain.url)
    assert missing.returncode == 2 and "cannot be read" in missing.stderr
    unresolved = run_verifier(live_server.url, "--challenge", "999999", rpc=chain.url)
    assert unresolved.returncode == 2 and "is not among the site's resolved challenges" in unresolved.stderr
