"""GET /api/challenges/N/unclaimed: the ledger's transfers to the treasury that name challenge N and
that no claim of the payer reached the site for (docs/protocol.md section 6, "Completeness"). 404
before resolution: which payments name an open challenge is for nobody to list."""

from decimal import Decimal

import pytest

from chain.models import Payment
from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"


def ledger_row(n: int, *, challenge_id: int, units: int = 2_500_000, commitment: str = "ab" * 32) -> Payment:
    return Payment.objects.create(
        transaction_hash="0x" + f"{0xF000 + n:064x}",
        log_index=n % 3,
        block_number=1000 + n,
        block_hash="0x" + "00" * 32,
        transaction_index=n % 2,
        from_address="0x" + f"{n:040x}",
        to_address="0x" + "77" * 20,
        amount_units=Decimal(units),
        commitment=commitment,
        challenge_id_word=Decimal(challenge_id),
        timestamp_word=Decimal(1767225600),
    )


def test_404_before_resolution_and_for_no_challenge(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    ledger_row(1, challenge_id=challenge.pk)
    assert api.get(f"/api/challenges/{challenge.pk}/unclaimed").status_code == 404
    assert api.get("/api/challenges/999999/unclaimed").status_code == 404


def test_lists_only_unclaimed_payments_naming_the_challenge(api, make_challenge, make_response, settings):
    challenge = make_challenge(solution=GIZA)
    claimed = make_response(challenge, GIZA, "3")
    lone = ledger_row(1, challenge_id=challenge.pk, units=1_005_000)
    ledger_row(2, challenge_id=challenge.pk + 1)  # another challenge's
    with_claim = ledger_row(3, challenge_id=challenge.pk)
    Payment.objects.filter(pk=with_claim.pk).update(transaction_hash=claimed.transaction_hash)
    # Only a stranger's claim names this one: still unclaimed by its payer.
    squatted = ledger_row(4, challenge_id=challenge.pk)
    stranger = make_response(challenge, "1, 1", "1", status=ResponseStatus.PENDING)
    Response.objects.filter(pk=stranger.pk).update(
        transaction_hash=squatted.transaction_hash, status=ResponseStatus.REJECTED, rejection_code="commitment_mismatch"
    )
    removed = ledger_row(5, challenge_id=challenge.pk)
    Payment.objects.filter(pk=removed.pk).update(removed=True)
    challenge_resolve(challenge=challenge)

    answer = api.get(f"/api/challenges/{challenge.pk}/unclaimed")
    assert answer.status_code == 200
    assert answer.json() == [
        {
            "transactionHash": lone.transaction_hash,
            "logIndex": lone.log_index,
            "blockNumber": lone.block_number,
            "transactionIndex": lone.transaction_index,
            "fromAddress": lone.from_address,
            "amount": "1.005000",
        },
        {
            "transactionHash": squatted.transaction_hash,
            "logIndex": squatted.log_index,
            "blockNumber": squatted.block_number,
            "transactionIndex": squatted.transaction_index,
            "fromAddress": squatted.from_address,
            "amount": "2.500000",
        },
    ]


def test_pages_follow_the_link_header(api, make_challenge):
    challenge = make_challenge(solution=GIZA)
    rows = [ledger_row(n, challenge_id=challenge.pk) for n in range(1, 6)]
    challenge_resolve(challenge=challenge)
    seen: list[str] = []
    url: str | None = f"/api/challenges/{challenge.pk}/unclaimed?limit=2"
    while url:
        answer = api.get(url)
        seen += [r["transactionHash"] for r in answer.json()]
        link = answer.headers.get("Link")
        url = link[1 : link.index(">")] if link else None
    assert seen == [r.transaction_hash for r in rows]
    assert api.get(f"/api/challenges/{challenge.pk}/unclaimed?limit=1001").status_code == 400
