"""verify_challenge.py and the exceptions of a resolved challenge (docs/protocol.md section 5,
"Exceptions"): a stake paid in time whose claim reached the site after resolution is rejected
`after_resolution`, left out of the pot and published in the winners answer's `exceptions`; a
counted stake whose block left the chain after resolution stays counted and is published as a
`reorged` exception. The verifier, run as a player runs it (chain/tests/verifier_support.py),
re-checks both against the chain: an honest exception is an EXCEPTION line and exit status 0, a
mislabelled one or a late claim that would have won is a DIFFERENCE.

The server side of these records (the `after_resolution` rejection, the ResolutionException rows and
the winners answer's `exceptions`) is being built on another branch. Until it is merged, these tests
write the minimal rows themselves (`claimed_after_resolution`) and add the exceptions to the winners
answer as the contract (the brief of docs/protocol.md section 5) words them (`publish`); at the merge
they are to be made by the services instead."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from challenges.coordinates import parse_coordinates
from config.public_cache import public_answers_mark_stale
from responses.models import Response, ResponseStatus
from responses.views import ChallengeWinnersView

from .conftest import post_claim
from .test_verify_records import record_of
from .verifier_support import Played, assert_differs, confirm, pay, resolve, verify

pytestmark = pytest.mark.django_db(transaction=True)

AFTER_RESOLUTION = "after_resolution"
SENTENCE = (
    "This payment reached Geopoem after the challenge was resolved, so it does not count toward the prizes; "
    "staff have been told."
)
RECORDED_AT = "2026-01-02T03:04:05Z"


def claimed_after_resolution(d, tx_hash: str, **changes) -> Response:
    """The claim the site stores for a payment whose claim came after resolution: rejected
    `after_resolution` (written here; from the services once the server side is merged)."""
    point = parse_coordinates(d.text)
    fields = {
        "challenge_id": d.challenge.pk,
        "submission_text": d.text,
        "submission_lat": point.lat,
        "submission_lon": point.lon,
        "submission_salt": d.salt,
        "commitment": d.commitment,
        "submission_stake": d.stake,
        "transaction_hash": tx_hash.lower(),
        "submitter_address": d.address,
        "status": ResponseStatus.REJECTED,
        "rejection_code": AFTER_RESOLUTION,
        "rejection_reason": SENTENCE,
    }
    return Response.objects.create(**{**fields, **changes})


def exception_of(claim: Response, kind: str = AFTER_RESOLUTION, **changes) -> dict:
    entry = {
        "responseId": claim.pk,
        "transactionHash": claim.transaction_hash,
        "submitterAddress": claim.submitter_address,
        "submissionStake": f"{claim.submission_stake:.6f}",
        "kind": kind,
        "recordedAt": RECORDED_AT,
    }
    return {**entry, **changes}


@pytest.fixture
def publish(monkeypatch):
    """The winners answer with these `exceptions` (from the services once the server side is merged)."""
    published: list[dict] = []
    build = ChallengeWinnersView.build

    def with_exceptions(challenge_id: int) -> dict:
        return {**build(challenge_id), "exceptions": list(published)}

    monkeypatch.setattr(ChallengeWinnersView, "build", staticmethod(with_exceptions))

    def publish_these(entries: list[dict]) -> None:
        published[:] = entries
        public_answers_mark_stale()  # the winners answer is cached (config/public_cache.py)

    return publish_these


def late_payer(chain, draft, played: Played, *, stake: str, text: str):
    """A fourth player pays while the challenge is open; the claim reaches the site only after staff
    resolved it."""
    d = draft(challenge=played.challenge, stake=stake, text=text, address=chain.w3.eth.accounts[5])
    from chain.contracts import mint

    mint(chain.w3, chain.usdc, d.address, 1_000 * 10**6, sender=chain.deployer)
    tx_hash = pay(chain, d)
    chain.mine(2)
    return d, tx_hash


def test_a_stake_paid_in_time_and_claimed_after_resolution_is_an_exception(
    chain, draft, played, live_server, publish, tmp_path
):
    d, tx_hash = late_payer(chain, draft, played, stake="4", text="30.0444, 31.2357")  # 12 km: not correct
    resolve(chain, played.challenge)
    late = claimed_after_resolution(d, tx_hash)
    publish([exception_of(late)])
    result = verify(live_server, chain, played.challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        f"EXCEPTION rejected claim {late.pk} ({late.transaction_hash}): paid in time, reached the site after "
        f"resolution; not counted in the pot (4.000000 USDC from {d.address}, recorded {RECORDED_AT})"
    ) in result.stdout.splitlines()
    tally = "3 counted, 0 rejected claims, 0 listed unclaimed, 0 outside the open window, 1 claimed after resolution"
    assert tally in result.stdout
    assert "DIFFERENCE" not in result.stdout
    assert result.last_line == "3 of 3 outcomes reproduced; the site published 1 exception"

    # The player's own record says so too, without a difference.
    path = tmp_path / "late.json"
    record = json.loads(Path(record_of(chain, played, "wrong", tmp_path)).read_text())
    record.update(coordinates=d.text, salt=d.salt, stakeUsdc=str(d.stake), submitterAddress=d.address)
    path.write_text(json.dumps({**record, "transactionHash": tx_hash}))
    mine = verify(live_server, chain, played.challenge, "--record", str(path))
    assert mine.returncode == 0, mine.stdout
    assert "Your record: the payment was made in time, but your claim reached the site after the challenge was " in (
        mine.stdout
    )


def test_a_late_claim_that_would_have_won_is_a_difference(chain, draft, played, live_server, publish):
    """Correct (about 5 m) and the largest stake: counted, it would take the highest prize. The site
    may be honest, or may have held a winning claim back until it had resolved: the chain shows the
    same either way, so the verifier says so and does not pass the challenge."""
    d, tx_hash = late_payer(chain, draft, played, stake="50", text="29.9792, 31.1343")
    resolve(chain, played.challenge)
    late = claimed_after_resolution(d, tx_hash)
    publish([exception_of(late)])
    result = verify(live_server, chain, played.challenge)
    also_right = played.also_right
    assert_differs(
        result,
        f"DIFFERENCE: rejected claim {late.pk} ({late.transaction_hash}): counted, it would have won the highest "
        f"prize instead of response {also_right.pk} ({also_right.transaction_hash}): its payment was mined in the "
        "open window and its guess is correct (",
        "The site says the claim reached it after resolution; the chain cannot tell that from a site holding back "
        "a winner",
    )
    assert f"EXCEPTION rejected claim {late.pk} " in result.stdout
    assert "the earliest prize" not in result.stdout  # paid after the earliest winner
    assert result.last_line.endswith("(3 of 3 outcomes reproduced); the site published 1 exception")


def test_a_payment_made_after_the_close_is_not_an_after_resolution_claim(chain, draft, played, live_server, publish):
    """A site that calls a late payment (mined after the close) a claim that came after resolution
    mislabels it: the first rule that payment fails is `late`."""
    resolve(chain, played.challenge)
    d = draft(challenge=played.challenge, stake="4", text="30.0444, 31.2357")
    tx_hash = pay(chain, d)
    chain.mine(2)
    late = claimed_after_resolution(d, tx_hash)
    publish([exception_of(late)])
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"rejected claim {late.pk} ({late.transaction_hash}): rejected after_resolution (paid in time, reached the "
        "site after resolution), but the first rule its payment fails is late: the site mislabelled it",
    )
    assert "EXCEPTION" not in result.stdout


def test_an_after_resolution_claim_needs_its_published_exception(chain, draft, played, live_server, publish):
    d, tx_hash = late_payer(chain, draft, played, stake="4", text="30.0444, 31.2357")
    resolve(chain, played.challenge)
    late = claimed_after_resolution(d, tx_hash)
    publish([exception_of(played.wrong), exception_of(late, submissionStake="40.000000")])
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"the site's exception for response {played.wrong.pk} ({played.wrong.transaction_hash}): it is of kind "
        "after_resolution, but names no claim rejected after_resolution",
        f"the site's exception for response {late.pk} ({late.transaction_hash}): it shows 40.000000 USDC from",
    )
    publish([])  # the winners answer now lists none
    bare = verify(live_server, chain, played.challenge)
    assert_differs(
        bare,
        f"rejected claim {late.pk} ({late.transaction_hash}): rejected after_resolution, but the site's winners "
        "answer lists no exception for it",
    )
    assert "the site published" not in bare.last_line


def test_a_counted_stake_whose_block_left_the_chain_after_resolution(chain, draft, played, live_server, publish):
    """The block of a counted stake is dropped after resolution: the claim stays counted (the pot and
    the winners do not move) and the site publishes a `reorged` exception. The verifier cannot find
    the payment, a DIFFERENCE, and the line cites what the site published."""
    before = chain.snapshot()
    d = draft(challenge=played.challenge, stake="2", text="30.0444, 31.2357")
    dropped = post_claim(d, pay(chain, d))
    confirm(chain, dropped)
    resolve(chain, played.challenge)
    chain.revert(before)  # the stake's block leaves the chain
    chain.mine(3)
    dropped.refresh_from_db()
    assert dropped.status == ResponseStatus.CONFIRMED and dropped.submission_stake == Decimal("2")
    publish([exception_of(dropped, kind="reorged")])
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {dropped.pk} ({dropped.transaction_hash}): the transaction is not on this chain (the "
        f"site published this as an exception: its block left the chain after resolution, recorded {RECORDED_AT})",
    )
    assert (
        f"EXCEPTION response {dropped.pk} ({dropped.transaction_hash}): its block left the chain after resolution "
        f"(reorged, recorded {RECORDED_AT}); its stake still counts in the pot, and its payment is missing"
    ) in result.stdout.splitlines()
    assert result.last_line.endswith("(3 of 4 outcomes reproduced); the site published 1 exception")


def test_an_exception_of_no_known_kind_or_naming_no_counted_response(chain, played, live_server, publish):
    resolve(chain, played.challenge)
    stamp = datetime(2026, 1, 2, tzinfo=UTC).isoformat()
    publish(
        [
            exception_of(played.right, kind="refunded", recordedAt=stamp),
            {**exception_of(played.wrong, kind="reorged"), "responseId": 10**9},
        ]
    )
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"the site's exception for response {played.right.pk} ({played.right.transaction_hash}): 'refunded' is no "
        "kind of exception",
        f"the site's exception for response {10**9} ({played.wrong.transaction_hash}): it is of kind reorged, but "
        "names no counted response",
    )
    assert result.last_line.endswith("the site published 2 exceptions")
