"""GET /api/responses (public list with keyset pagination) and GET /api/responses/{hash}."""

import re

import pytest

from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
FIELDS = {
    "id", "challengeId", "submissionText", "submissionStake", "submissionTimestamp", "transactionHash",
    "submitterAddress", "commitment", "status", "rejectionCode", "rejectionReason", "distanceMeters", "isCorrect",
    "submissionSalt", "blockNumber", "transactionIndex", "logIndex", "paymentMethod", "authorization",
}  # fmt: skip


def test_list_holds_only_confirmed_responses_of_resolved_challenges(api, make_challenge, make_response):
    resolved = make_challenge(solution=GIZA, title="Resolved")
    good = make_response(resolved, "29.9792, 31.1342", "5")
    make_response(resolved, GIZA, "5", status=ResponseStatus.REJECTED)
    challenge_resolve(challenge=resolved)
    active = make_challenge(title="Active")
    make_response(active, GIZA, "9")

    answer = api.get("/api/responses")
    assert answer.status_code == 200
    data = answer.json()
    assert [row["id"] for row in data] == [good.pk]
    row = data[0]
    assert set(row) == FIELDS
    assert row["submissionText"] == "29.9792, 31.1342"
    assert row["submissionStake"] == "5.000000"
    assert isinstance(row["distanceMeters"], float) and row["isCorrect"] is True
    # Resolved: what re-checking the outcome needs is public (responses/tests/test_api_outcomes.py).
    assert row["submissionSalt"] == good.submission_salt


def test_filter_by_challenge_and_bad_filter(api, make_challenge, make_response):
    first = make_challenge(solution=GIZA, title="One")
    a = make_response(first, GIZA)
    challenge_resolve(challenge=first)
    second = make_challenge(solution=GIZA, title="Two")
    b = make_response(second, GIZA)
    challenge_resolve(challenge=second)
    assert [r["id"] for r in api.get(f"/api/responses?challengeId={first.pk}").json()] == [a.pk]
    assert [r["id"] for r in api.get(f"/api/responses?challengeId={second.pk}").json()] == [b.pk]
    assert api.get("/api/responses?challengeId=x").status_code == 400


def test_cursor_pagination_walks_every_row_once(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    ids = [make_response(challenge, GIZA).pk for _ in range(7)]
    challenge_resolve(challenge=challenge)
    url: str | None = "/api/responses?limit=3"
    seen, pages = [], 0
    while url:
        answer = api.get(url)
        assert answer.status_code == 200
        seen += [row["id"] for row in answer.json()]
        pages += 1
        link = answer.headers.get("Link")
        if link:
            match = re.fullmatch(r'<http://testserver(?P<path>[^>]+)>; rel="next"', link)
            assert match, link
            url = match["path"]
        else:
            url = None
    assert seen == ids
    assert pages == 3


@pytest.mark.parametrize("query", ["limit=0", "limit=1001", "limit=abc", "cursor=%%%", "cursor=bm9wZQ"])
def test_bad_paging_parameters_are_400(api, query):
    answer = api.get(f"/api/responses?{query}")
    assert answer.status_code == 400
    assert set(answer.json()) == {"message", "errors"}


def test_status_by_hash_hides_coordinates_until_resolution(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    claim = make_response(challenge, GIZA, "3")
    answer = api.get(f"/api/responses/{claim.transaction_hash.upper().replace('0X', '0x')}")
    assert answer.status_code == 200
    data = answer.json()
    assert data["status"] == "confirmed"
    assert data["submissionText"] is None
    assert "submissionSalt" not in data and "distanceMeters" not in data
    challenge_resolve(challenge=challenge)
    assert api.get(f"/api/responses/{claim.transaction_hash}").json()["submissionText"] == GIZA


def test_status_of_an_unknown_hash_is_404(api, db):
    answer = api.get("/api/responses/0x" + "0" * 64)
    assert answer.status_code == 404
    assert answer.json() == {"message": "No submission uses this transaction.", "errors": {}}


def test_rejection_reason_is_readable(api, make_challenge, make_response):
    challenge = make_challenge()
    claim = make_response(challenge, GIZA, status=ResponseStatus.REJECTED)
    claim.rejection_code = "amount_mismatch"
    claim.rejection_reason = "The transaction paid a different amount than the claim's stake."
    claim.save()
    data = api.get(f"/api/responses/{claim.transaction_hash}").json()
    assert (data["status"], data["rejectionCode"]) == ("rejected", "amount_mismatch")
    assert data["rejectionReason"].startswith("The transaction paid")


def test_several_claims_on_one_hash_each_found_by_its_commitment(api, make_challenge, make_response):
    # A stranger's claim (posted first) and the player's wait on the same transaction.
    challenge = make_challenge(solution=GIZA)
    stranger = make_response(challenge, "1, 2", "2", status=ResponseStatus.PENDING)
    player = make_response(challenge, GIZA, "2", status=ResponseStatus.PENDING)
    Response.objects.filter(pk=player.pk).update(transaction_hash=stranger.transaction_hash)
    url = f"/api/responses/{stranger.transaction_hash}"

    for claim in (stranger, player):
        answer = api.get(f"{url}?commitment={claim.commitment.upper()}")
        assert answer.status_code == 200
        data = answer.json()
        assert (data["id"], data["commitment"], data["status"]) == (claim.pk, claim.commitment, "pending")
        assert data["submissionText"] is None and "submissionSalt" not in data
    # Without a commitment, which waiting claim is the asker's cannot be told.
    assert api.get(url).status_code == 404
    assert api.get(f"{url}?commitment={'0' * 64}").status_code == 404

    Response.objects.filter(pk=player.pk).update(status=ResponseStatus.CONFIRMED)
    Response.objects.filter(pk=stranger.pk).update(
        status=ResponseStatus.REJECTED, rejection_code="commitment_mismatch", rejection_reason="x"
    )
    # Old links (no commitment) find the confirmed claim; the stranger's own look-up finds his.
    assert api.get(url).json()["id"] == player.pk
    rejected = api.get(f"{url}?commitment={stranger.commitment}").json()
    assert (rejected["id"], rejected["status"], rejected["submissionText"]) == (stranger.pk, "rejected", None)


def test_a_lone_claim_is_found_without_its_commitment(api, make_challenge, make_response):
    claim = make_response(make_challenge(), GIZA, status=ResponseStatus.PENDING)
    assert api.get(f"/api/responses/{claim.transaction_hash}").json()["id"] == claim.pk


@pytest.mark.parametrize("commitment", ["", "abc", "g" * 64, "0" * 65])
def test_a_malformed_commitment_is_400(api, make_challenge, make_response, commitment):
    claim = make_response(make_challenge(), GIZA)
    answer = api.get(f"/api/responses/{claim.transaction_hash}?commitment={commitment}")
    assert answer.status_code == 400
    assert answer.json() == {
        "message": "commitment must be 64 hexadecimal characters.",
        "errors": {"commitment": ["Not a commitment."]},
    }
