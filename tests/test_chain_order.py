"""The winners are the pot's: the lowest correct sequence number, and the highest correct stake with
ties to the lower sequence (docs/protocol.md section 4), among the guesses revealed on chain,
whatever the order the reveals arrive in. The site shows them as the follower replays the events
(chain/pot/projection.py); each case here reveals in an order (so block numbers, times and event
rows) that contradicts the sequence, so a projection ordering by any of those picks another stake."""

from itertools import permutations

import pytest

from challenges.models import PotState
from responses.models import Stake

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"
FAR = "48.8584, 2.2945"


def reference(stakes: list[tuple[int, int, bool]]) -> tuple[int | None, int | None]:
    """The contract's rule over (seq, amount, correct), written out plainly."""
    correct = [(seq, amount) for seq, amount, ok in stakes if ok]
    if not correct:
        return None, None
    earliest = min(seq for seq, _ in correct)
    highest = sorted(correct, key=lambda pair: (-pair[1], pair[0]))[0][0]
    return earliest, highest


@pytest.fixture
def played(make_challenge, make_stake, pot_recorder):
    """A challenge with six stakes (amount in USDC, correct), closed and its solution revealed."""
    challenge = make_challenge(solution=GIZA)
    plan = [("5", False), ("3", True), ("7", True), ("7", True), ("9", False), ("1", True)]
    stakes = [make_stake(challenge, NEAR if ok else FAR, amount)[0] for amount, ok in plan]
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    return challenge, [(s, ok) for s, (_, ok) in zip(stakes, plan, strict=True)]


@pytest.mark.parametrize("order", list(permutations(range(6)))[::97])
def test_the_winners_do_not_depend_on_the_order_of_the_reveals(played, pot_recorder, api, order):
    challenge, stakes = played
    revealed = []
    for index in order:
        stake, ok = stakes[index]
        pot_recorder.reveal_guess(challenge, seq=stake.seq, payer=stake.payer, lat_e6=0, lon_e6=0, correct=ok)
        revealed.append((stake.seq, int(stake.amount_units), ok))
        state = PotState.objects.get(challenge=challenge)
        assert (state.earliest_seq, state.highest_seq) == reference(revealed), revealed
    assert reference(revealed) == (2, 3)  # 7 and 7: the tie goes to the lower sequence
    winners = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert (winners["earliest"]["id"], winners["highest"]["id"]) == (2, 3)


def test_a_stake_revealed_twice_changes_nothing(played, pot_recorder):
    challenge, stakes = played
    for stake, ok in stakes[1:3] + stakes[1:3]:
        pot_recorder.reveal_guess(challenge, seq=stake.seq, payer=stake.payer, lat_e6=0, lon_e6=0, correct=ok)
    state = PotState.objects.get(challenge=challenge)
    assert (state.earliest_seq, state.highest_seq) == (2, 3)
    assert Stake.objects.filter(challenge=challenge, revealed_correct=True).count() == 2


def test_the_shared_winners_vectors_as_the_site_projects_them(vectors, make_challenge, pot_recorder):
    """tests/vectors.json ("verifier", "winners"), which both verifiers replay too: each case's stakes and
    reveals recorded as the pot's events in the case's order, then projected once by the follower's code
    (one projection per event would cost a minute), and the winners the site shows."""
    project = pot_recorder.project
    for case in vectors["verifier"]["winners"]:
        challenge = make_challenge(solution=GIZA)
        pot_recorder.project = lambda **_: None  # recorded only, until the case's last event
        payers = {}
        for stake in case["stakes"]:
            payer = "0x" + f"{challenge.pk:020x}{stake['seq']:020x}"
            seq = pot_recorder.stake(
                challenge,
                payer=payer,
                amount=int(stake["amount"]),
                commitment=f"{challenge.pk:032x}{stake['seq']:032x}",
            )
            assert seq == stake["seq"], case["about"]
            payers[seq] = payer
        pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
        pot_recorder.reveal_solution(challenge)
        for reveal in case["reveals"]:
            seq = reveal["seq"]
            pot_recorder.reveal_guess(
                challenge, seq=seq, payer=payers[seq], lat_e6=0, lon_e6=0, correct=reveal["correct"]
            )
        pot_recorder.project = project
        pot_recorder.project(touched={challenge.pk})
        state = PotState.objects.get(challenge=challenge)
        assert (state.earliest_seq, state.highest_seq) == (case["earliest"], case["highest"]), case["about"]
        assert Stake.objects.filter(challenge=challenge).count() == len(case["stakes"]), case["about"]
