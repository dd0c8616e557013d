"""Both verifiers (verify_challenge.py and the page's, chain/tests/mixed_stakes.py `both`) on what the
site says of claims paid by authorization besides its counted responses (docs/protocol.md section 5,
"The verifier", steps 4 and 6): rejected claims judged by the token's own logs (used, cancelled, or
expired at the head), a relayed payment naming the challenge that the site hid, a player's record of
a relayed stake (found by its AuthorizationUsed log: the record knows no transaction), and a relayed
stake whose claim reached the site after resolution (an exception)."""

from __future__ import annotations

import json

import pytest

from chain.models import Payment
from chain.verification import payment_verify
from challenges.models import Challenge
from challenges.services import challenge_stake_moved
from config.public_cache import public_answers_mark_stale
from responses.models import ExceptionKind, ResolutionException, Response

from .conftest import ANVIL_CHAIN_ID
from .mixed_stakes import VALIDITY, Mixed, both, build_mixed
from .verifier_support import assert_differs, operator_rejects, relay, resolve, run_verifier, sign_stake

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mixed(chain, draft, make_challenge, third, make_authorization_response) -> Mixed:
    return build_mixed(chain, draft, make_challenge, third, make_authorization_response)


def record_of(world: Mixed, name: str, tmp_path) -> str:
    """The page's "Download record" of a stake paid by authorization (docs/protocol.md 3.3a and 3.5:
    `paymentMethod`, `authorization`), before the page learned the transaction that used it."""
    d, anchor = world.drafts[name], world.challenge.anchor
    record = {
        "challengeId": world.challenge.pk,
        "coordinates": d.text,
        "salt": d.salt,
        "stakeUsdc": str(d.stake),
        "chainId": ANVIL_CHAIN_ID,
        "submitterAddress": d.address,
        "paymentMethod": "authorization",
        "authorization": {"validAfter": 0, "validBefore": world.signed[name][0], "signature": world.signed[name][1]},
        "anchor": {
            "registry": anchor.registry_address,
            "transactionHash": anchor.transaction_hash,
            "blockNumber": anchor.block_number,
            "solutionSha256": world.challenge.solution_sha256,
            "termsSha256": anchor.terms_sha256,
        },
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_a_players_records_of_stakes_paid_by_authorization(chain, mixed, live_server, tmp_path):
    relayed, expired = mixed.claims["relayed"], mixed.claims["expired"]
    result = run_verifier(live_server.url, "--record", record_of(mixed, "relayed", tmp_path), rpc=chain.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Your record: your authorization was used in transaction {relayed.transaction_hash}" in result.stdout
    assert f"the payment had to count, and it is counted as response {relayed.pk}: correct" in result.stdout
    result = run_verifier(live_server.url, "--record", record_of(mixed, "expired", tmp_path), rpc=chain.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the payment did not have to count: the first rule it fails is authorization_expired" in result.stdout
    assert "Your record: the site rejected your claim with authorization_expired" in result.stdout
    assert expired.transaction_hash == ""


def test_a_relayed_payment_the_site_hid_differs_in_both_and_the_players_record_names_it(
    chain, mixed, live_server, tmp_path
):
    """The claim deleted with its ledger row and its stake taken out of the sums: the relayed payment
    names the challenge and nothing accounts for it. The player's record shows it had to count."""
    hidden = mixed.claims["by_stranger"]
    tx, payer = hidden.transaction_hash, hidden.submitter_address.lower()
    Response.objects.filter(pk=hidden.pk).delete()
    assert Payment.objects.filter(transaction_hash=tx).delete()[0] == 1  # the site's ledger had it
    challenge_stake_moved(challenge_id=mixed.challenge.pk, stake=-hidden.submission_stake, count=-1)
    result, page = both(live_server, chain, Challenge.objects.get(pk=mixed.challenge.pk))
    assert_differs(
        result,
        f"DIFFERENCE: payment {tx} from {payer} of 2.000000 USDC in block {hidden.block_number} names challenge "
        f"{mixed.challenge.pk} and is neither counted, rejected nor listed unclaimed",
    )
    assert page["ok"] is False
    assert [p["accountedAs"] for p in page["payments"] if p["transactionHash"] == tx] == [None]
    named = f"from {payer}, block {hidden.block_number}) names this challenge and was made while it was open"
    assert any(line.startswith(f"payment {tx} (") and named in line for line in page["differences"]), page
    record = run_verifier(live_server.url, "--record", record_of(mixed, "by_stranger", tmp_path), rpc=chain.url)
    assert_differs(record, f"your payment {tx} had to count, and the site does not count it (not listed at all)")


def dropped_and_listed(world: Mixed) -> None:
    """Before resolution, the operator drops the claim of the stranger-relayed stake and takes its
    stake out of the sums: the challenge's own accounts add up. The site's ledger keeps the payment
    (it read the relayed call's challenge word and nonce), which is then listed as unclaimed."""
    dropped = world.claims["by_stranger"]
    Response.objects.filter(pk=dropped.pk).delete()
    challenge_stake_moved(challenge_id=world.challenge.pk, stake=-dropped.submission_stake, count=-1)
    (row,) = Payment.objects.filter(transaction_hash=dropped.transaction_hash)
    assert (row.response_id, row.challenge_id_word, row.commitment) == (None, world.challenge.pk, dropped.commitment)


def test_a_relayed_payment_listed_unclaimed_is_accounted_for_and_only_the_record_shows_it_was_dropped(
    chain, draft, make_challenge, third, make_authorization_response, live_server, tmp_path
):
    """docs/protocol.md section 5, "What re-checking cannot show": a site that dropped a claim and
    lists its relayed payment as unclaimed passes the challenge-wide check in both verifiers; the
    player's record names the difference."""
    mixed = build_mixed(
        chain, draft, make_challenge, third, make_authorization_response, before_resolution=dropped_and_listed
    )
    dropped = mixed.claims["by_stranger"]
    result, page = both(live_server, chain, Challenge.objects.get(pk=mixed.challenge.pk))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 counted, 0 rejected claims, 1 listed unclaimed" in result.stdout
    assert page["ok"] is True, page["differences"]
    assert {p["transactionHash"]: p["accountedAs"] for p in page["payments"]}[dropped.transaction_hash] == "unclaimed"
    record = run_verifier(live_server.url, "--record", record_of(mixed, "by_stranger", tmp_path), rpc=chain.url)
    tx = dropped.transaction_hash
    assert_differs(record, f"your payment {tx} had to count, and the site does not count it (listed unclaimed)")
    # Listed at another log than its Transfer's, it differs in both.
    assert dropped.log_index is not None
    Payment.objects.filter(transaction_hash=tx).update(log_index=dropped.log_index - 1)
    public_answers_mark_stale()
    result, page = both(live_server, chain, Challenge.objects.get(pk=mixed.challenge.pk))
    assert_differs(result, f"unclaimed payment {tx} log {dropped.log_index - 1}: no such transfer")
    assert page["ok"] is False


def test_rejected_authorization_claims_with_false_codes_differ_in_both(chain, mixed, live_server):
    """A used authorization rejected `authorization_expired` (its transaction hidden), an expired one
    rejected `authorization_cancelled`, a cancelled one rejected `authorization_expired`."""
    used, expired, cancelled = (mixed.claims[name] for name in ("by_stranger", "expired", "cancelled"))
    operator_rejects(used, "authorization_expired")
    Response.objects.filter(pk=used.pk).update(
        transaction_hash="", block_number=None, block_hash="", transaction_index=None, log_index=None
    )
    challenge_stake_moved(challenge_id=mixed.challenge.pk, stake=-used.submission_stake, count=-1)
    operator_rejects(expired, "authorization_cancelled")
    operator_rejects(cancelled, "authorization_expired")
    result, page = both(live_server, chain, Challenge.objects.get(pk=mixed.challenge.pk))
    assert_differs(
        result,
        f"rejected claim {used.pk} (authorization {used.commitment}): rejected authorization_expired, but its payment "
        "passes every rule and had to count",
        f"rejected claim {expired.pk} (authorization {expired.commitment}): rejected authorization_cancelled, the "
        "first rule its payment fails is authorization_expired",
        f"rejected claim {cancelled.pk} (authorization {cancelled.commitment}): rejected authorization_expired, the "
        "first rule its payment fails is authorization_cancelled",
    )
    # The hidden transaction is the payer's rejected claim's: accounted for, and that claim differs.
    assert "3 counted, 1 rejected claims, 0 listed unclaimed" in result.stdout
    assert page["ok"] is False
    assert (
        f'rejected claim {used.pk}: rejected "authorization_expired", but its payment passes every rule'
        in (page["differences"])
    )
    for claim, code, expected in ((expired, "authorization_cancelled", "authorization_expired"),
                                  (cancelled, "authorization_expired", "authorization_cancelled")):  # fmt: skip
        line = f'rejected claim {claim.pk}: rejected "{code}", but the first rule its payment fails is "{expected}"'
        assert line in page["differences"], page["differences"]
    assert {p["transactionHash"]: p["accountedAs"] for p in page["payments"]}[used.transaction_hash] == "rejected"


@pytest.mark.parametrize(
    ("text", "stake", "wins"),
    [("30.0444, 31.2357", "4", False), ("29.9793, 31.1343", "9", True)],
    ids=["not-a-winner", "would-have-won-the-highest"],
)
def test_a_relayed_stake_claimed_after_resolution_is_an_exception(
    chain, draft, played, make_authorization_response, live_server, text, stake, wins
):
    """Relayed while the challenge was open, claimed after staff resolved it: the site's verification
    rejects the claim `after_resolution` and records the exception (responses/barrier.py). Both
    verifiers re-check it against the chain, by section 2a's rules; one that would have won is a
    difference, since a site holding back a winner looks the same."""
    from chain.contracts import mint

    d = draft(challenge=played.challenge, stake=stake, text=text, address=chain.w3.eth.accounts[5])
    mint(chain.w3, chain.usdc, d.address, 1_000 * 10**6, sender=chain.deployer)
    valid_before = chain.w3.eth.get_block("latest")["timestamp"] + VALIDITY
    search_from = chain.w3.eth.block_number
    tx = relay(chain, d, sender=chain.w3.eth.accounts[6], valid_before=valid_before)
    chain.mine(2)
    resolve(chain, played.challenge)
    claim = make_authorization_response(
        played.challenge,
        d.text,
        stake,
        address=d.address,
        salt=d.salt,
        sign=lambda authorization: sign_stake(chain, d, authorization.valid_before),
        valid_before=valid_before,
        search_from_block=search_from,
    )
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == ("rejected", "after_resolution")
    assert ResolutionException.objects.filter(response=claim, kind=ExceptionKind.AFTER_RESOLUTION).exists()
    receipt = chain.w3.eth.get_transaction_receipt(tx)
    result, page = both(live_server, chain, played.challenge)
    assert f"EXCEPTION rejected claim {claim.pk} ({tx}): paid in time, reached the site after resolution" in (
        result.stdout
    )
    assert "1 claimed after resolution" in result.stdout
    assert result.last_line.endswith("; the site published 1 exception")
    assert len(page["exceptions"]) == 1 and f"Rejected claim {claim.pk} ({tx})" in page["exceptions"][0]
    assert [p["accountedAs"] for p in page["payments"] if p["transactionHash"] == tx] == ["late"]
    if not wins:
        assert result.returncode == 0, result.stdout
        assert page["ok"] is True, page["differences"]
        return
    # Its Transfer's place in chain order is the log right after its AuthorizationUsed.
    assert receipt["logs"][1]["logIndex"] == receipt["logs"][0]["logIndex"] + 1
    instead = f"the highest prize instead of response {played.also_right.pk} ({played.also_right.transaction_hash})"
    assert_differs(result, f"rejected claim {claim.pk} ({tx}): counted, it would have won {instead}")
    assert any(f"counted, it would have won {instead}" in line for line in page["differences"]), page["differences"]
