"""verify_challenge.py and the exceptions of a resolved challenge (docs/protocol.md section 5,
"Exceptions"): a stake paid in time whose claim reached the site after resolution is rejected
`after_resolution`, left out of the pot and published in the winners answer's `exceptions`; a
counted stake whose block left the chain after resolution stays counted and is published as a
`reorged` exception. The verifier, run as a player runs it (chain/tests/verifier_support.py),
re-checks both against the chain: an honest exception is an EXCEPTION line and exit status 0, a
mislabelled one or a late claim that would have won is a DIFFERENCE.

Every record here is the site's own, on anvil and the real database: the claim is posted through
POST /api/responses after staff resolved and verified as the worker verifies it (payment_verify), so
that the barrier rejects it and records its exception (responses/barrier.py); a counted stake's block
is dropped by an anvil revert after resolution and the worker's re-check (chain/reorgs.py,
confirmed_recheck) records it. The dishonest operator's cases start from those records and then edit
the database behind the services, as an operator with no scruples could: each edit is an UPDATE,
INSERT or DELETE made by `operator_edits`, and says so where it is made."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC
from decimal import Decimal
from pathlib import Path

import pytest

from chain.reorgs import confirmed_recheck
from chain.verification import payment_verify
from config.public_cache import public_answers_mark_stale
from responses.models import ExceptionKind, ResolutionException, Response, ResponseStatus
from responses.reasons import REASON_SENTENCES, Reason

from .conftest import post_claim
from .test_close_window import body
from .test_verify_records import record_of
from .verifier_support import Played, assert_differs, confirm, pay, resolve, verify

pytestmark = pytest.mark.django_db(transaction=True)


def utc(exception: ResolutionException) -> str:
    """How the verifier prints an exception's `recordedAt` (Unix seconds): an ISO UTC time."""
    return f"{exception.created_at.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def late_payer(chain, draft, played: Played, *, stake: str, text: str):
    """A fourth player pays while the challenge is open; the claim reaches the site only after staff
    resolved it."""
    d = draft(challenge=played.challenge, stake=stake, text=text, address=chain.w3.eth.accounts[5])
    from chain.contracts import mint

    mint(chain.w3, chain.usdc, d.address, 1_000 * 10**6, sender=chain.deployer)
    tx_hash = pay(chain, d)
    chain.mine(2)
    return d, tx_hash


def claim_after(api, chain, d, tx_hash: str, *, code: str = Reason.AFTER_RESOLUTION) -> Response:
    """The page posts the claim after staff resolved (the site stores it: nothing paid is lost) and
    the worker verifies it once it is deep enough: it ends rejected `code`."""
    answer = api.post("/api/responses", body(d, tx_hash), format="json")
    assert answer.status_code == 201, answer.content
    chain.mine(2)
    outcome = payment_verify(response_id=answer.json()["id"])
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, code)
    return Response.objects.get(pk=answer.json()["id"])


def recorded(claim: Response, kind: str = ExceptionKind.AFTER_RESOLUTION) -> ResolutionException:
    """The exception the barrier recorded for the claim."""
    return ResolutionException.objects.get(response=claim, kind=kind)


def operator_edits(edit: Callable[[], object]) -> None:
    """A dishonest operator's edit of the database behind the services (an UPDATE, INSERT or DELETE
    of the caller's). The public answers are then marked stale as a service's write marks them; an
    operator's edit would otherwise show once the cache expires (config/public_cache.py)."""
    edit()
    public_answers_mark_stale()


def test_a_stake_paid_in_time_and_claimed_after_resolution_is_an_exception(
    chain, draft, played, api, live_server, tmp_path
):
    d, tx_hash = late_payer(chain, draft, played, stake="4", text="30.0444, 31.2357")  # 12 km: not correct
    resolve(chain, played.challenge)
    late = claim_after(api, chain, d, tx_hash)
    assert late.rejection_reason == REASON_SENTENCES[Reason.AFTER_RESOLUTION]
    exception = recorded(late)
    result = verify(live_server, chain, played.challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        f"EXCEPTION rejected claim {late.pk} ({late.transaction_hash}): paid in time, reached the site after "
        f"resolution; not counted in the pot (4.000000 USDC from {d.address}, recorded {utc(exception)})"
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


def test_a_late_claim_that_would_have_won_is_a_difference(chain, draft, played, api, live_server):
    """Correct (about 5 m) and the largest stake: counted, it would take the highest prize. The site
    may be honest, or may have held a winning claim back until it had resolved: the chain shows the
    same either way, so the verifier says so and does not pass the challenge."""
    d, tx_hash = late_payer(chain, draft, played, stake="50", text="29.9792, 31.1343")
    resolve(chain, played.challenge)
    late = claim_after(api, chain, d, tx_hash)
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


def test_a_payment_made_after_the_close_is_not_an_after_resolution_claim(chain, draft, played, api, live_server):
    """A payment mined after the close is rejected `late` and recorded as no exception. An operator
    who relabels it a claim that came after resolution, and publishes an exception for it, is
    caught: the first rule that payment fails is `late`."""
    resolve(chain, played.challenge)
    d = draft(challenge=played.challenge, stake="4", text="30.0444, 31.2357")
    late = claim_after(api, chain, d, pay(chain, d), code=Reason.LATE)
    assert not ResolutionException.objects.exists()

    def relabel():  # an UPDATE of the claim and an INSERT of its exception, behind the services
        Response.objects.filter(pk=late.pk).update(
            rejection_code=Reason.AFTER_RESOLUTION, rejection_reason=REASON_SENTENCES[Reason.AFTER_RESOLUTION]
        )
        ResolutionException.objects.create(
            challenge=played.challenge,
            response=late,
            kind=ExceptionKind.AFTER_RESOLUTION,
            stake=late.submission_stake,
            transaction_hash=late.transaction_hash,
        )

    operator_edits(relabel)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"rejected claim {late.pk} ({late.transaction_hash}): rejected after_resolution (paid in time, reached the "
        "site after resolution), but the first rule its payment fails is late: the site mislabelled it",
    )
    assert "EXCEPTION" not in result.stdout
    assert result.last_line.endswith("the site published 1 exception")


def test_an_after_resolution_claim_needs_its_published_exception(chain, draft, played, api, live_server):
    d, tx_hash = late_payer(chain, draft, played, stake="4", text="30.0444, 31.2357")
    resolve(chain, played.challenge)
    late = claim_after(api, chain, d, tx_hash)
    exception = ResolutionException.objects.filter(pk=recorded(late).pk)

    # An UPDATE of the published stake: the exception no longer shows the claim it names.
    operator_edits(lambda: exception.update(stake=Decimal("40")))
    mismatched = verify(live_server, chain, played.challenge)
    assert_differs(
        mismatched,
        f"the site's exception for response {late.pk} ({late.transaction_hash}): it shows 40.000000 USDC from",
    )

    # An UPDATE that points the exception at a counted response: it names no late claim, and the late
    # claim has none.
    wrong = played.wrong
    operator_edits(
        lambda: exception.update(response=wrong, stake=wrong.submission_stake, transaction_hash=wrong.transaction_hash)
    )
    repointed = verify(live_server, chain, played.challenge)
    assert_differs(
        repointed,
        f"the site's exception for response {wrong.pk} ({wrong.transaction_hash}): it is of kind after_resolution, "
        "but names no claim rejected after_resolution",
        f"rejected claim {late.pk} ({late.transaction_hash}): rejected after_resolution, but the site's winners "
        "answer lists no exception for it",
    )

    # A DELETE: the winners answer lists none.
    operator_edits(exception.delete)
    bare = verify(live_server, chain, played.challenge)
    assert_differs(
        bare,
        f"rejected claim {late.pk} ({late.transaction_hash}): rejected after_resolution, but the site's winners "
        "answer lists no exception for it",
    )
    assert "the site published" not in bare.last_line


def test_a_counted_stake_whose_block_left_the_chain_after_resolution(chain, draft, played, live_server):
    """The block of a counted stake is dropped after resolution: the worker's re-check keeps the claim
    counted (the pot and the winners do not move) and records a `reorged` exception. The verifier
    cannot find the payment, a DIFFERENCE, and the line cites what the site published."""
    before = chain.snapshot()
    d = draft(challenge=played.challenge, stake="2", text="30.0444, 31.2357")
    dropped = post_claim(d, pay(chain, d))
    confirm(chain, dropped)
    resolve(chain, played.challenge)
    chain.revert(before)  # the stake's block leaves the chain
    chain.mine(3)
    assert confirmed_recheck() == []  # nothing goes back to pending after resolution
    dropped.refresh_from_db()
    assert dropped.status == ResponseStatus.CONFIRMED and dropped.submission_stake == Decimal("2")
    at = utc(recorded(dropped, ExceptionKind.REORGED))
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {dropped.pk} ({dropped.transaction_hash}): the transaction is not on this chain (the "
        f"site published this as an exception: its block left the chain after resolution, recorded {at})",
    )
    assert (
        f"EXCEPTION response {dropped.pk} ({dropped.transaction_hash}): its block left the chain after resolution "
        f"(reorged, recorded {at}); its stake still counts in the pot, and its payment is missing"
    ) in result.stdout.splitlines()
    assert result.last_line.endswith("(3 of 4 outcomes reproduced); the site published 1 exception")


def test_an_exception_of_no_known_kind_or_naming_no_counted_response(chain, draft, played, api, live_server):
    """The database ties every exception to a stored claim, so an operator's made-up exceptions name
    real claims: one of a kind the protocol does not have, and a `reorged` one naming a claim that is
    not counted."""
    d, tx_hash = late_payer(chain, draft, played, stake="4", text="30.0444, 31.2357")
    resolve(chain, played.challenge)
    late = claim_after(api, chain, d, tx_hash)
    right = played.right

    def make_up():  # an UPDATE of the late claim's exception and an INSERT of another, behind the services
        ResolutionException.objects.filter(pk=recorded(late).pk).update(kind=ExceptionKind.REORGED)
        ResolutionException.objects.create(
            challenge=played.challenge,
            response=right,
            kind="refunded",
            stake=right.submission_stake,
            transaction_hash=right.transaction_hash,
        )

    operator_edits(make_up)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"the site's exception for response {right.pk} ({right.transaction_hash}): 'refunded' is no kind of exception",
        f"the site's exception for response {late.pk} ({late.transaction_hash}): it is of kind reorged, but names "
        "no counted response",
    )
    assert result.last_line.endswith("the site published 2 exceptions")
