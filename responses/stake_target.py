"""What the POST of a signed stake (docs/protocol.md 3.1) reads before it decides, in one statement: the
challenge it names with its pot's state and opening, the chain's time, and what else already carries
its commitment (responses/services.py, signed_stake_submit)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from challenges.models import ChainClock, Challenge, ChallengeStatus, OpeningStatus, PotOpening, PotState
from config.rows import columns, convert, instance

from .models import Guess, SignedStake, Stake


@dataclass(frozen=True)
class StakeTarget:
    """The published challenge a signed stake names, with what the POST decides by (responses/services.py)."""

    challenge: Challenge  # the fields its phase needs, its pot's state and its opening attached
    chain_time: datetime | None  # the latest block the follower read (chain_now), None before the first
    commitment_signed: bool  # a signed stake carries this commitment (maybe this very one, posted before)
    commitment_staked: bool  # a stake in the pot carries it
    guess_held: bool  # this payer's guess with it is held


_CHALLENGE = columns(Challenge, "c", "id", "status", "closes_at", "solution_deadline", "min_stake")
_STATE = columns(PotState, "s", "id", "challenge", "terms_digest", "solution_block", "guess_deadline", "settled")
_OPENING = columns(PotOpening, "o", "id", "challenge", "status")
_CLOCK_TIME = ChainClock._meta.get_field("block_time")
# challenges.selectors.challenge_published (published, its opening confirmed, the pot's state joined
# when there is one) and chain_clock, with the three lookups of the commitment, as one statement. Its
# names come from the models' metadata; every value is a parameter.
_STAKE_TARGET = f"""
SELECT {_CHALLENGE.sql()}, {_STATE.sql()}, {_OPENING.sql()},
    (SELECT k.block_time FROM {ChainClock._meta.db_table} k WHERE k.id = 1),
    EXISTS (SELECT 1 FROM {SignedStake._meta.db_table} x WHERE x.commitment = %s),
    EXISTS (SELECT 1 FROM {Stake._meta.db_table} x WHERE x.commitment = %s),
    EXISTS (SELECT 1 FROM {Guess._meta.db_table} x WHERE x.challenge_id = %s AND x.payer = %s AND x.commitment = %s)
FROM {Challenge._meta.db_table} c
    JOIN {PotOpening._meta.db_table} o ON o.challenge_id = c.id
    LEFT JOIN {PotState._meta.db_table} s ON s.challenge_id = c.id
WHERE c.id = %s AND c.status = %s AND o.status = %s
"""  # noqa: S608


def stake_target(*, challenge_id: int, payer: str, commitment: str) -> StakeTarget | None:
    """The published challenge `challenge_id` as the POST of a signed stake needs it, and the chain's
    time, and what else carries `commitment`, in one statement; None when no such challenge is
    published and opened. Written as SQL: the ORM took about 2 ms of CPU to compose this join and
    its four subqueries, a fifth of the whole POST (docs/performance.md section 2)."""
    params: list[int | str] = [commitment, commitment, challenge_id, payer, commitment]
    params += [challenge_id, ChallengeStatus.PUBLISHED.value, OpeningStatus.CONFIRMED.value]
    with connection.cursor() as cursor:
        cursor.execute(_STAKE_TARGET, params)
        row = cursor.fetchone()
    if row is None:
        return None
    state_at = len(_CHALLENGE)
    opening_at = state_at + len(_STATE)
    rest_at = opening_at + len(_OPENING)
    challenge = instance(_CHALLENGE, row[:state_at])
    state = instance(_STATE, row[state_at:opening_at])
    opening = instance(_OPENING, row[opening_at:rest_at])
    assert isinstance(challenge, Challenge) and isinstance(opening, PotOpening)
    # As select_related("pot", "opening") leaves them: no query to reach either, and no state is
    # PotState.DoesNotExist.
    Challenge.pot.related.set_cached_value(challenge, state)
    Challenge.opening.related.set_cached_value(challenge, opening)
    clock_time, signed, staked, guess = row[rest_at:]
    return StakeTarget(
        challenge=challenge,
        chain_time=convert(_CLOCK_TIME, clock_time),
        commitment_signed=bool(signed),
        commitment_staked=bool(staked),
        guess_held=bool(guess),
    )
