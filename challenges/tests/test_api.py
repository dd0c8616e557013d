"""Contract tests of the challenge endpoints (docs/protocol.md 3.6): field names, types, the phases as
the pot's events and the chain's clock make them, and what each answer shows before and after the
solution's reveal. The pot's events are recorded without a chain (conftest.py, pot_recorder) and
projected by the follower's own code; chain/tests/ play the same on anvil."""

import pytest

from challenges.models import PotOpening, PotState

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("api_reads_rows")]


GIZA = "29.979175, 31.134258"
CHALLENGE_FIELDS = {
    "id", "poemTitle", "poemText", "instructionsText", "proximityThreshold", "solutionSha256", "solutionReveal",
    "solutionSalt", "stakedSum", "responseCount", "startTimestamp", "closesTimestamp", "solutionDeadline",
    "guessWindowSeconds", "guessDeadline", "minStake", "bond", "termsSha256", "termsDigest", "openTransactionHash",
    "openBlockNumber", "phase",
}  # fmt: skip


def test_active_is_null_when_there_is_none(api, db):
    answer = api.get("/api/challenges/active")
    assert answer.status_code == 200
    assert answer.content == b"null"


def test_an_open_challenge_shape(api, make_challenge, make_stake):
    challenge = make_challenge(solution=GIZA, threshold=None)
    make_stake(challenge, GIZA, "2.5")
    make_stake(challenge, GIZA, "4", deep=False)  # in a block, not CHAIN_CONFIRMATIONS deep yet
    data = api.get("/api/challenges/active").json()
    assert set(data) == CHALLENGE_FIELDS
    state = PotState.objects.get(challenge=challenge)
    opening = PotOpening.objects.get(challenge=challenge)
    assert data["id"] == challenge.pk and data["phase"] == "open"
    assert data["proximityThreshold"] is None
    assert data["solutionReveal"] is None and data["solutionSalt"] is None and data["guessDeadline"] is None
    assert data["solutionSha256"] == challenge.solution_sha256 and len(data["solutionSha256"]) == 64
    assert data["stakedSum"] == "2.500000" and data["responseCount"] == 1  # only the confirmed stake
    assert data["startTimestamp"] == int(challenge.opens_at.timestamp())
    assert data["closesTimestamp"] == int(challenge.closes_at.timestamp())
    assert data["solutionDeadline"] == int(challenge.solution_deadline.timestamp())
    assert data["guessWindowSeconds"] == challenge.guess_window_seconds
    assert (data["minStake"], data["bond"]) == ("1.00", "0.00")
    assert data["termsSha256"] == opening.terms_sha256 == opening.terms["terms_hash"]
    assert data["termsDigest"] == state.terms_digest == opening.terms_digest
    assert data["openTransactionHash"] == state.opened_transaction and data["openBlockNumber"] == state.opened_block
    assert api.get(f"/api/challenges/{challenge.pk}").json() == data


def test_drafts_and_challenges_not_opened_on_chain_are_nowhere(api, make_challenge):
    draft = make_challenge(publish=False, title="A draft")
    queued = make_challenge(opened=False, title="Published, its open not on chain")
    assert api.get("/api/challenges/active").json() is None
    assert api.get("/api/challenges/resolved").json() == []
    for challenge in (draft, queued):
        answer = api.get(f"/api/challenges/{challenge.pk}")
        assert answer.status_code == 404, answer.content


def test_the_phases_follow_the_chain_clock_and_the_pots_events(api, make_challenge, pot_recorder):
    """open -> closed (the chain's time at closesAt) -> revealing (SolutionRevealed) -> final (the
    guess window over) -> paid (Finalized with no winner, and no stake to refund)."""
    challenge = make_challenge(solution=GIZA)
    assert api.get("/api/challenges/active").json()["phase"] == "open"
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    closed = api.get("/api/challenges/active").json()
    assert (closed["id"], closed["phase"]) == (challenge.pk, "closed")
    assert closed["solutionReveal"] is None and api.get("/api/challenges/resolved").json() == []
    pot_recorder.reveal_solution(challenge)
    revealing = api.get("/api/challenges/active").json()
    assert revealing["phase"] == "revealing"
    assert (revealing["solutionReveal"], revealing["solutionSalt"]) == (GIZA, challenge.solution_salt)
    deadline = PotState.objects.get(challenge=challenge).guess_deadline
    assert deadline is not None and revealing["guessDeadline"] == int(deadline.timestamp())
    assert [c["id"] for c in api.get("/api/challenges/resolved").json()] == [challenge.pk]
    pot_recorder.advance(challenge.guess_window_seconds)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "final"
    assert api.get("/api/challenges/active").json() is None  # final: no longer the active tab's
    pot_recorder.finalize(challenge)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "paid"


def test_a_solution_never_revealed_aborts_at_its_deadline(api, make_challenge, pot_recorder):
    challenge = make_challenge(solution=GIZA)
    pot_recorder.advance(int((challenge.solution_deadline - pot_recorder.now()).total_seconds()) - 1)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "closed"
    pot_recorder.advance(1)
    aborted = api.get(f"/api/challenges/{challenge.pk}").json()
    assert aborted["phase"] == "aborted" and aborted["solutionReveal"] is None and aborted["solutionSalt"] is None
    assert [c["id"] for c in api.get("/api/challenges/resolved").json()] == [challenge.pk]


def test_the_open_challenge_wins_over_a_closed_one_and_resolved_lists_newest_close_first(
    api, make_challenge, pot_recorder
):
    first = make_challenge(title="First")
    pot_recorder.advance(int((first.closes_at - pot_recorder.now()).total_seconds()))
    assert api.get("/api/challenges/active").json()["id"] == first.pk  # closed, but the latest
    second = make_challenge(title="Second", now=pot_recorder.now())
    assert api.get("/api/challenges/active").json()["id"] == second.pk
    pot_recorder.reveal_solution(first)
    pot_recorder.advance(int((second.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(second)
    assert [c["id"] for c in api.get("/api/challenges/resolved").json()] == [second.pk, first.pk]


def test_resolved_is_an_empty_list_when_none(api, db):
    assert api.get("/api/challenges/resolved").json() == []
