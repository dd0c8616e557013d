"""The winners answer does not grow with the responses (docs/performance.md section 2, "size of the
winners answer"): a challenge of 200 responses answers with the same fields and entries as one of 3
with the same winners, and only the values that count, sum or identify are longer. `make bench`
measures the same at a million (bench/scale.py)."""

import pytest

from devtools.json_shape import value_growth
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
# What may get longer with more responses when the winners are the same: the count, the sums and the
# shares cut from them, and the row identifiers (their digits follow the table, not the challenge).
VALUES_THAT_COUNT = {
    "responseCount",
    "totalStaked",
    "operations",
    "unallocated",
    "earliest.prize",
    "highest.prize",
    *(f"payouts[{i}].amount" for i in range(3)),
}
IDENTIFIERS = {"challengeId", "earliest.id", "highest.id"}


def resolved_with_fillers(make_challenge, make_response, fillers: int) -> int:
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, "2", block=500)  # the earliest correct guess
    make_response(challenge, "29.979, 31.134", "90", block=600)  # the highest correct stake
    for _ in range(fillers):
        make_response(challenge, "0, 0", "1234.5", block=700)
    challenge_resolve(challenge=challenge)
    return challenge.pk


def test_the_winners_answer_holds_the_same_fields_at_200_responses_as_at_3(api, make_challenge, make_response):
    small = resolved_with_fillers(make_challenge, make_response, 1)
    big = resolved_with_fillers(make_challenge, make_response, 200)
    small_answer = api.get(f"/api/challenges/{small}/winners").json()
    big_answer = api.get(f"/api/challenges/{big}/winners").json()
    assert big_answer["responseCount"] == 202 and big_answer["earliest"] and big_answer["highest"]

    growth = value_growth(small_answer, big_answer)

    assert growth is not None, "the answer gained or lost a field or an entry"
    assert set(growth) <= VALUES_THAT_COUNT | IDENTIFIERS, growth
    assert {"responseCount", "totalStaked"} <= set(growth)  # the sums did grow: the check can see growth
