"""What a verifier needs to account for every payment and every prize once a challenge is resolved
(docs/protocol.md section 6): the rejected claims (`GET /api/responses?status=rejected`), the
payouts in the winners answer, and each claim's outcome for its payer. Nothing of it before
resolution; the unclaimed payments (a ledger answer) are tested in chain/tests/test_api_unclaimed.py."""

from decimal import Decimal

import pytest

from challenges.models import Payout, PayoutKind, PayoutStatus
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
PAYER = "0x" + "ab" * 20


def reject(claim, code="amount_mismatch"):
    Response.objects.filter(pk=claim.pk).update(
        status=ResponseStatus.REJECTED, rejection_code=code, rejection_reason=REASON_SENTENCES[code]
    )
    claim.refresh_from_db()
    return claim


def rejected_list(api, challenge, **params):
    answer = api.get("/api/responses", {"challengeId": challenge.pk, "status": "rejected", **params})
    assert answer.status_code == 200, answer.content
    return answer


def test_rejected_claims_are_listed_only_after_resolution_with_what_rechecks_them(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, "3")
    refused = reject(make_response(challenge, "10, 10", "2", status=ResponseStatus.PENDING))
    assert rejected_list(api, challenge).json() == []  # nothing before resolution
    assert api.get("/api/responses", {"challengeId": challenge.pk}).json() == []

    challenge_resolve(challenge=challenge)
    (item,) = rejected_list(api, challenge).json()
    assert item == {
        "id": refused.pk,
        "challengeId": challenge.pk,
        "submissionText": "10, 10",
        "submissionStake": "2.000000",
        "submissionTimestamp": None,
        "transactionHash": refused.transaction_hash,
        "submitterAddress": refused.submitter_address,
        "commitment": refused.commitment,
        "status": "rejected",
        "rejectionCode": "amount_mismatch",
        "rejectionReason": REASON_SENTENCES["amount_mismatch"],
        "submissionSalt": refused.submission_salt,
        "blockNumber": refused.block_number,
        "transactionIndex": 0,
        "logIndex": 0,
        "paymentMethod": "transfer",
        "authorization": None,
    }
    # The default stays the confirmed, scored list.
    (confirmed,) = api.get("/api/responses", {"challengeId": challenge.pk}).json()
    assert confirmed["status"] == "confirmed" and "distanceMeters" in confirmed
    assert api.get("/api/responses", {"challengeId": challenge.pk, "status": "confirmed"}).json() == [confirmed]


def test_the_rejected_list_pages_by_link_and_refuses_another_status(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, "3")
    refused = [reject(make_response(challenge, "1, 1", "1", status=ResponseStatus.PENDING)) for _ in range(3)]
    challenge_resolve(challenge=challenge)
    first = rejected_list(api, challenge, limit=2)
    assert [r["id"] for r in first.json()] == [r.pk for r in refused[:2]]
    link = first["Link"]
    second = api.get(link[1 : link.index(">")])
    assert [r["id"] for r in second.json()] == [refused[2].pk] and "Link" not in second
    for status in ("pending", "all", ""):
        for params in ({"challengeId": challenge.pk}, {"address": PAYER}):
            answer = api.get("/api/responses", {**params, "status": status})
            assert answer.status_code == 400 and answer.json()["errors"] == {"status": ["Not a listed status."]}


def resolved_with_prizes(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=100)
    winner = make_response(challenge, GIZA, "10", address=PAYER)
    loser = make_response(challenge, "0, 0", "2.5", address=PAYER)
    challenge_resolve(challenge=challenge)
    return challenge, winner, loser


def test_the_winners_answer_lists_every_payout(api, make_challenge, make_response, settings):
    settings.OPERATIONS_ADDRESS = ""
    challenge, winner, _ = resolved_with_prizes(make_challenge, make_response)
    payouts = api.get(f"/api/challenges/{challenge.pk}/winners").json()["payouts"]
    assert payouts == [
        {"kind": "earliest", "address": PAYER, "amount": "5.000000", "status": "due", "transactionHash": None},
        {"kind": "highest", "address": PAYER, "amount": "5.000000", "status": "due", "transactionHash": None},
        {
            "kind": "operations",
            "address": settings.TREASURY_ADDRESS,
            "amount": "2.500000",
            "status": "kept",
            "transactionHash": None,
        },
    ]


def test_each_claim_of_a_payer_carries_its_outcome_once_resolved(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=100)
    winner = make_response(challenge, GIZA, "10", address=PAYER)
    loser = make_response(challenge, "29.98, 31.14", "2.5", address=PAYER)
    refused = reject(make_response(challenge, GIZA, "1", status=ResponseStatus.PENDING, address=PAYER))

    def outcomes():
        listed = {r["id"]: r["outcome"] for r in api.get("/api/responses", {"address": PAYER}).json()}
        for claim in (winner, loser, refused):
            answer = api.get(f"/api/responses/{claim.transaction_hash}", {"commitment": claim.commitment}).json()
            assert answer["outcome"] == listed[claim.pk]
        return listed

    assert set(outcomes().values()) == {None}  # before resolution
    challenge_resolve(challenge=challenge)
    found = outcomes()
    assert found[refused.pk] is None
    assert found[winner.pk] == {
        "isCorrect": True,
        "distanceMeters": 0.0,
        "prize": "10.000000",  # both prizes: 40 % + 40 % of 12.5
        "payoutStatus": "due",
        "payoutTransactionHash": None,
    }
    lost = found[loser.pk]
    assert lost["isCorrect"] is False and lost["distanceMeters"] > 100
    assert (lost["prize"], lost["payoutStatus"], lost["payoutTransactionHash"]) == ("0.000000", None, None)

    # Paid: the earliest prize verified, the highest still verifying: the status of the one less far along.
    earliest = Payout.objects.get(challenge=challenge, kind=PayoutKind.EARLIEST)
    Payout.objects.filter(pk=earliest.pk).update(status=PayoutStatus.PAID, transaction_hash="0x" + "ee" * 32)
    Payout.objects.filter(kind=PayoutKind.HIGHEST).update(
        status=PayoutStatus.VERIFYING, transaction_hash="0x" + "ff" * 32
    )
    paid = outcomes()[winner.pk]
    assert (paid["payoutStatus"], paid["payoutTransactionHash"]) == ("verifying", "0x" + "ee" * 32)
    Payout.objects.filter(kind=PayoutKind.HIGHEST).update(status=PayoutStatus.PAID)
    assert outcomes()[winner.pk]["payoutStatus"] == "paid"
    assert Decimal(outcomes()[winner.pk]["prize"]) == Decimal("10")
