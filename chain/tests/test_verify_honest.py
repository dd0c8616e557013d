"""verify_challenge.py, run as a player runs it (chain/tests/verifier_support.py), on an honest
challenge: one with every kind of claim and payment (confirmed, rejected for each reason, unclaimed,
a paid prize) is reproduced in full, each rejection's code re-derived from the chain; and a verifier
that cannot read what it needs says so and exits 2."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chain.contracts import contract_at
from chain.indexer import payments_index
from chain.payouts import payout_verify
from chain.verification import payment_verify
from challenges.models import Payout, PayoutKind, PayoutStatus
from challenges.payouts import payout_record_transaction
from challenges.services import challenge_close
from responses.models import Response
from responses.reasons import REASON_SENTENCES

from .conftest import post_claim
from .verifier_support import (
    GIZA,
    assert_differs,
    mine_pending,
    pay,
    pay_out,
    resolve,
    run_verifier,
    send_unmined,
    verify,
    wait_for_wall_clock_past_head,
)

pytestmark = pytest.mark.django_db(transaction=True)


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
    assert closed.closed_at is not None
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


def test_the_verifier_that_cannot_read_says_so_and_exits_2(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    down = run_verifier(live_server.url, "--challenge", str(played.challenge.pk), rpc="http://127.0.0.1:9")
    assert down.returncode == 2 and "could not verify" in down.stderr and down.stdout == ""
    missing = run_verifier(live_server.url, "--record", str(tmp_path / "none.json"), rpc=chain.url)
    assert missing.returncode == 2 and "cannot be read" in missing.stderr
    unresolved = run_verifier(live_server.url, "--challenge", "999999", rpc=chain.url)
    assert unresolved.returncode == 2 and "is not among the site's resolved challenges" in unresolved.stderr
