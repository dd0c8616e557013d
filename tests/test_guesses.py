"""The guess of a stake in the pot (docs/protocol.md 3.2) and its verdict: the page posts it once the
stake is confirmed; the site keeps it secret until the solution's reveal, then scores it with the
pot's integer rule (challenges/geometry.py, so the worker reveals exactly the guesses the pot will
count) and shows the haversine beside it; a reveal that leaves the chain takes the verdicts with it.
The pot's events are recorded without a chain (conftest.py, pot_recorder); chain/tests/ post guesses
on anvil."""

from datetime import timedelta
from decimal import Decimal

import pytest

from challenges.commitments import guess_commitment, new_salt
from challenges.coordinates import micro_degrees
from challenges.geometry import is_correct
from responses.models import Guess

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("api_reads_rows")]

GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"  # about 30 m away: correct within 150 m
FAR = "48.8584, 2.2945"
PAYER = "0x" + "a1" * 20


def staked(settings, pot_recorder, challenge, text: str, *, payer: str = PAYER, deep: bool = True) -> dict:
    """A stake in the pot (its Staked event recorded) whose guess the page still holds: the body of
    POST /api/responses/guess."""
    salt = new_salt()
    lat, lon = micro_degrees(text)
    commitment = guess_commitment(
        chain_id=settings.CHAIN_ID, pot=settings.POT_ADDRESS, challenge_id=challenge.pk, payer=payer,
        lat_e6=lat, lon_e6=lon, salt=salt,
    )  # fmt: skip
    pot_recorder.stake(challenge, payer=payer, amount=2_000_000, commitment=commitment, deep=deep)
    return {
        "challengeId": challenge.pk,
        "submitterAddress": payer,
        "commitment": commitment,
        "submissionText": text,
        "submissionSalt": salt,
    }


def post(api, body: dict):
    return api.post("/api/responses/guess", body, format="json")


def test_a_guess_is_taken_once_its_stake_is_confirmed_and_kept_secret(api, settings, make_challenge, pot_recorder):
    challenge = make_challenge(solution=GIZA)
    body = staked(settings, pot_recorder, challenge, NEAR, deep=False)
    early = post(api, body)
    assert (early.status_code, early.json()["code"]) == (409, "stake_not_confirmed")
    assert early.json()["message"] == "This stake is not confirmed in the pot yet; the page sends the guess once it is."
    assert not Guess.objects.exists()
    pot_recorder.advance(12)  # the stake's block is deep enough now
    first = post(api, body)
    assert first.status_code == 201, first.json()
    assert first.json()["guessReceived"] is True and first.json()["submissionText"] is None
    again = post(api, {**body, "submissionText": " 29.9790000, +31.134 "})  # the same point, written otherwise
    assert again.status_code == 200 and Guess.objects.count() == 1
    guess = Guess.objects.get()
    assert (guess.text, (guess.lat_e6, guess.lon_e6), guess.is_correct) == (NEAR, micro_degrees(NEAR), None)


def test_a_guess_that_does_not_open_its_commitment_is_refused(api, settings, make_challenge, pot_recorder):
    """Nobody attaches a guess to a stake they did not make: the payer is bound into the commitment."""
    challenge = make_challenge(solution=GIZA)
    body = staked(settings, pot_recorder, challenge, NEAR)
    for wrong in (
        {"submissionText": FAR},
        {"submissionSalt": new_salt()},
        {"submitterAddress": "0x" + "b2" * 20},  # someone else posting the same guess and salt
        {"challengeId": make_challenge(title="Another").pk},
    ):
        answer = post(api, {**body, **wrong})
        assert (answer.status_code, answer.json()["code"]) == (422, "commitment_mismatch"), wrong
    assert not Guess.objects.exists()
    assert post(api, {**body, "challengeId": 999_999}).status_code == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("submissionText", "91, 0"),
        ("submissionText", "1e3, 0"),
        ("submissionSalt", "AB" * 32),
        ("submissionSalt", "ab" * 31),
        ("commitment", "0x" + "ab" * 32),
        ("submitterAddress", "0x1234"),
        ("challengeId", 0),
    ],
)
def test_a_malformed_field_is_a_400_naming_it(api, settings, make_challenge, pot_recorder, field, value):
    body = staked(settings, pot_recorder, make_challenge(), NEAR)
    answer = post(api, {**body, field: value})
    assert answer.status_code == 400 and set(answer.json()["errors"]) == {field}, answer.json()


def test_no_guess_is_taken_when_the_worker_could_not_reveal_it_in_time(api, settings, make_challenge, pot_recorder):
    settings.GUESS_ACCEPT_MARGIN_SECONDS = 300
    challenge = make_challenge(solution=GIZA)
    bodies = [staked(settings, pot_recorder, challenge, text) for text in (NEAR, FAR, GIZA)]
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    deadline = challenge.pot.__class__.objects.get(challenge=challenge).guess_deadline
    pot_recorder.advance(int((deadline - timedelta(seconds=301) - pot_recorder.now()).total_seconds()))
    assert post(api, bodies[0]).status_code == 201  # 301 s left: the worker still has time
    pot_recorder.advance(1)
    closing = post(api, bodies[1])
    assert (closing.status_code, closing.json()["code"]) == (409, "guess_window_closing")
    pot_recorder.advance(400)
    assert post(api, bodies[2]).json()["code"] == "guess_window_closing"
    assert post(api, bodies[0]).status_code == 200  # the one it holds is still the one it holds


def test_the_guesses_are_scored_at_the_solutions_reveal_and_unscored_if_it_leaves(
    api, settings, make_challenge, pot_recorder
):
    from chain.models import PotEvent

    challenge = make_challenge(solution=GIZA, threshold=150)
    bodies = [staked(settings, pot_recorder, challenge, text) for text in (NEAR, FAR)]
    late = staked(settings, pot_recorder, challenge, GIZA, payer="0x" + "c3" * 20)
    for body in bodies:
        assert post(api, body).status_code == 201
    assert set(Guess.objects.values_list("is_correct", flat=True)) == {None}
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    near, far = (Guess.objects.get(commitment=body["commitment"]) for body in bodies)
    assert (near.is_correct, far.is_correct) == (True, False)
    assert near.is_correct == is_correct(micro_degrees(NEAR), micro_degrees(GIZA), 150)
    assert Decimal(0) < near.distance_m < Decimal(150) < far.distance_m
    assert near.distance_m == near.distance_m.quantize(Decimal("0.01"))
    listed = api.get(f"/api/responses?challengeId={challenge.pk}").json()
    assert [(row["submissionText"], row["isCorrect"]) for row in listed] == [(NEAR, True), (FAR, False), (None, None)]
    assert listed[0]["distanceMeters"] == f"{near.distance_m:.2f}"
    # A guess that arrives after the reveal is scored at once, and shown since the solution is public.
    answer = post(api, late)
    assert answer.status_code == 201
    assert (answer.json()["submissionText"], answer.json()["isCorrect"], answer.json()["distanceMeters"]) == (
        GIZA,
        True,
        "0.00",
    )
    # The block of the reveal leaves the chain (a reorg): the verdicts go with it, the guesses are
    # secret again.
    PotEvent.objects.filter(challenge_id=challenge.pk, name="SolutionRevealed").delete()
    pot_recorder.project(touched={challenge.pk})
    assert set(Guess.objects.values_list("is_correct", flat=True)) == {None}
    assert set(Guess.objects.values_list("distance_m", flat=True)) == {None}
    assert Guess.objects.count() == 3
    assert api.get(f"/api/responses?challengeId={challenge.pk}").json() == []
    shown = api.get(f"/api/responses/{bodies[0]['commitment']}").json()
    assert (shown["submissionText"], shown["isCorrect"], shown["distanceMeters"]) == (None, None, None)
