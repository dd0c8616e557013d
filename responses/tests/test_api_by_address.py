"""GET /api/responses?address=0x…: a payer's own claims of any status, newest first, for My
submissions on another device. Before resolution nothing secret leaves the server in any state."""

import json

import pytest

from responses.models import ResponseStatus
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
PAYER = "0x" + "Ab" * 20
SECRET_FIELDS = {"submissionSalt", "salt", "latitude", "longitude", "distanceMeters", "isCorrect", "solution"}


def _listed(api, address=PAYER, **params):
    answer = api.get("/api/responses", {"address": address, **params})
    assert answer.status_code == 200, answer.content
    return answer


@pytest.mark.parametrize("state", [ResponseStatus.PENDING, ResponseStatus.REJECTED, ResponseStatus.CONFIRMED])
def test_no_coordinates_or_salt_before_resolution_in_any_state(api, make_challenge, make_response, state):
    challenge = make_challenge(solution=GIZA)
    claim = make_response(challenge, GIZA, "3.5", status=state, address=PAYER)
    if state == ResponseStatus.REJECTED:
        claim.rejection_code = "amount_mismatch"
        claim.rejection_reason = "The amount paid does not match the stake of the guess."
        claim.save()
    answer = _listed(api, address=PAYER.lower())
    (item,) = answer.json()
    assert item["status"] == state
    assert item["transactionHash"] == claim.transaction_hash
    assert item["submissionStake"] == "3.500000"
    assert item["submissionText"] is None
    assert not SECRET_FIELDS & set(item)
    body = answer.content.decode()
    assert claim.submission_salt not in body
    assert "29.979175" not in body and "31.134258" not in body
    if state == ResponseStatus.REJECTED:
        assert item["rejectionCode"] == "amount_mismatch"


def test_coordinates_once_resolved(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, address=PAYER)
    challenge_resolve(challenge=challenge)
    (item,) = _listed(api).json()
    assert item["submissionText"] == GIZA
    assert "submissionSalt" not in item


def test_only_that_address_newest_first_and_not_strangers_claims_naming_it(api, make_challenge, make_response):
    challenge = make_challenge()
    older = make_response(challenge, GIZA, address=PAYER)
    make_response(challenge, GIZA, address="0x" + "cd" * 20)
    mixed_case = PAYER.upper().replace("0X", "0x")
    newer = make_response(challenge, "40.6892, -74.0445", status=ResponseStatus.PENDING, address=mixed_case)
    # A stranger wrote the payer's address into claims: no read of their transactions showed the
    # payer's own claim, whatever their status (chain/tests/test_lists_payers_only.py, on anvil).
    for code in ("wrong_sender", "commitment_mismatch", "not_found", "tx_failed", ""):
        status = ResponseStatus.REJECTED if code else ResponseStatus.PENDING
        junk = make_response(challenge, GIZA, status=status, address=PAYER, sent_by_submitter=False)
        junk.rejection_code = code
        junk.save()
    assert [item["id"] for item in _listed(api).json()] == [newer.id, older.id]


def test_pages_newest_first_through_the_link_header(api, make_challenge, make_response):
    challenge = make_challenge()
    ids = [make_response(challenge, GIZA, address=PAYER).id for _ in range(5)]
    seen: list[int] = []
    url: str | None = f"/api/responses?address={PAYER}&limit=2"
    while url:
        answer = api.get(url)
        assert answer.status_code == 200
        seen += [item["id"] for item in answer.json()]
        link = answer.headers.get("Link")
        url = link[1 : link.index(">")] if link else None
    assert seen == sorted(ids, reverse=True)


@pytest.mark.parametrize(
    "params",
    [
        {"address": "0x123"},
        {"address": "ab" * 20},
        {"address": "0x" + "g" * 40},
        {"address": ""},
        {"address": PAYER, "limit": "0"},
        {"address": PAYER, "cursor": "!!"},
        {"address": PAYER, "challengeId": "x"},
    ],
)
def test_malformed_address_or_paging_is_400(api, db, params):
    answer = api.get("/api/responses", params)
    assert answer.status_code == 400
    assert set(answer.json()) == {"message", "errors"}


def test_an_oldest_first_cursor_is_refused_for_the_address_list(api, make_challenge, make_response):
    from responses.pagination import encode_cursor

    answer = api.get("/api/responses", {"address": PAYER, "cursor": encode_cursor(5, "after")})
    assert answer.status_code == 400


def test_the_address_list_narrows_to_one_challenge(api, make_challenge, make_response):
    from challenges.services import challenge_close

    first = challenge_close(challenge=make_challenge(title="First"))
    second = make_challenge(title="Second")
    mine_first = make_response(first, GIZA, "2", status="pending", address=PAYER)
    mine_second = make_response(second, GIZA, "3", status="pending", address=PAYER)
    both = api.get("/api/responses", {"address": PAYER}).json()
    assert [c["id"] for c in both] == [mine_second.pk, mine_first.pk]
    only = api.get("/api/responses", {"address": PAYER, "challengeId": str(first.pk)}).json()
    assert [c["id"] for c in only] == [mine_first.pk]


@pytest.mark.postgresql
def test_claims_naming_an_address_that_are_not_listed_are_not_read_either(make_challenge, make_response):
    """The list reads the partial index of exactly the rows it shows (response_submitter_listed): a
    flood of claims naming an address, never listed, is never scanned past either."""
    from django.db import connection

    from responses.selectors import response_list_by_address

    challenge = make_challenge()
    mine = make_response(challenge, GIZA, status=ResponseStatus.PENDING, address=PAYER)
    for _ in range(30):
        make_response(challenge, GIZA, status=ResponseStatus.PENDING, address=PAYER, sent_by_submitter=False)
    listed = response_list_by_address(address=PAYER)[:100]
    assert [claim.pk for claim in listed] == [mine.pk]
    sql, params = listed.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        plan = json.dumps(cursor.fetchone()[0])
    assert '"Index Name": "response_submitter_listed"' in plan
    assert '"Actual Rows": 30' not in plan and '"Actual Rows": 31' not in plan
