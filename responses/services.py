"""Writes of responses: a signed stake a player asks the site to relay (docs/protocol.md 3.1), the guess
of a stake in the pot (3.2), the relay's progress the chain app's relayer reports, and the projections
of the pot's events its follower rebuilds (chain/pot/projection.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from challenges.commitments import guess_commitment
from challenges.coordinates import micro_degrees, parse_coordinates
from challenges.geometry import is_correct
from challenges.models import Challenge
from challenges.scoring import haversine_m
from challenges.selectors import (
    chain_clock,
    chain_now,
    challenge_published,
    challenge_takes_stakes,
)
from config.public_cache import public_answers_mark_stale

from .models import Guess, PotPayment, RelayStatus, SignedStake, Stake
from .ports import SignedStakeRequest, chain_port
from .stake_target import stake_target

# --- A signed stake to relay (docs/protocol.md 3.1) ------------------------------------------


class ChallengeNotFound(Exception):
    pass


class ChallengeNotTakingStakes(Exception):
    """Not open (or about to close): a relayed stake could only revert."""


class CommitmentAlreadySigned(Exception):
    """This payer signed a stake with this commitment before, with another amount or signature."""


class StakeRefused(Exception):
    """The signature or the chain shows the stake can never be taken (422)."""

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


class AuthorizationsUnsupported(Exception):
    """The token takes no EIP-3009 authorizations (409)."""


class AuthorizationsUnavailable(Exception):
    """The token's domain cannot be read right now (503; may pass)."""


class BelowChallengeMinimum(ValueError):
    def __init__(self, minimum: Decimal) -> None:
        super().__init__(f"The minimum stake of this challenge is {minimum.normalize():f} USDC.")


@dataclass(frozen=True)
class SignedStakeResult:
    signed_stake: SignedStake
    created: bool
    # The challenge as this request read it (its pot's state and opening joined in).
    challenge: Challenge | None = None
    # Nothing but this new row carries its commitment (no stake in the pot, no other signed stake, no
    # guess): the stake's view (docs/protocol.md 3.4) is this row's alone, built without reading again.
    alone: bool = False


def _same(request: SignedStakeRequest, stored: SignedStake) -> bool:
    return (request.amount_units, request.valid_after, request.valid_before, request.signature) == (
        int(stored.amount_units),
        stored.valid_after,
        stored.valid_before,
        stored.signature,
    )


def signed_stake_submit(*, request: SignedStakeRequest, stake: Decimal) -> SignedStakeResult:
    """Store a signed stake and queue it for the relayer, or say why not. The identical stake posted
    again (a retry after a lost answer, also many at once) returns the stored one."""
    target = stake_target(challenge_id=request.challenge_id, payer=request.payer, commitment=request.commitment)
    if target is None:
        raise ChallengeNotFound
    challenge = target.challenge
    if target.commitment_signed:
        stored = SignedStake.objects.filter(
            challenge_id=request.challenge_id, payer=request.payer, commitment=request.commitment
        ).first()
        if stored is not None:
            if not _same(request, stored):
                raise CommitmentAlreadySigned
            return SignedStakeResult(stored, created=False)
    wall = timezone.now()
    # chain_now() or the wall clock, whichever is later, as challenge_takes_stakes reads them itself.
    now = max(target.chain_time, wall) if target.chain_time is not None else wall
    if not challenge_takes_stakes(challenge=challenge, now=now):
        raise ChallengeNotTakingStakes
    if stake < challenge.min_stake:
        raise BelowChallengeMinimum(challenge.min_stake)
    port = chain_port()
    check = port.check_signed_stake(request, terms_digest=challenge.pot.terms_digest)
    if check.unsupported:
        raise AuthorizationsUnsupported
    if check.unavailable:
        raise AuthorizationsUnavailable
    if check.refusal_code:
        raise StakeRefused(check.refusal_code, check.refusal_sentence)
    admission = port.relay_admit(payer=request.payer)
    try:
        with transaction.atomic():
            row = SignedStake.objects.create(
                challenge_id=request.challenge_id,
                payer=request.payer,
                amount_units=request.amount_units,
                commitment=request.commitment,
                nonce=check.nonce,
                valid_after=request.valid_after,
                valid_before=request.valid_before,
                signature=request.signature,
                relay_status=admission.status,
                relay_code=admission.code,
                relay_reason=admission.reason,
            )
            if admission.status == RelayStatus.QUEUED:
                port.signed_stake_stored(signed_stake=row)
    except IntegrityError:  # the same stake posted at the same moment: the other insert won
        stored = SignedStake.objects.get(
            challenge_id=request.challenge_id, payer=request.payer, commitment=request.commitment
        )
        if not _same(request, stored):
            raise CommitmentAlreadySigned from None
        return SignedStakeResult(stored, created=False)
    alone = not (target.commitment_signed or target.commitment_staked or target.guess_held)
    return SignedStakeResult(row, created=True, challenge=challenge, alone=alone)


# Where each relay status may be reached from: a relayer that runs twice, or late, cannot move a
# signed stake backwards. `queued` is only ever the first status.
_MAY_FOLLOW: dict[str, tuple[str, ...]] = {
    RelayStatus.SENT: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.REFUSED: (RelayStatus.QUEUED,),
    RelayStatus.NOT_NEEDED: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.FAILED: (RelayStatus.QUEUED, RelayStatus.SENT),
}


def signed_stake_relay_moved(
    *, signed_stake_id: int, status: str, code: str = "", reason: str = "", transaction_hash: str = ""
) -> bool:
    """Move a signed stake's relay to `status`; True when this call moved it."""
    fields: dict[str, object] = {
        "relay_status": status,
        "relay_code": code,
        "relay_reason": reason[:300],
        "updated_at": timezone.now(),
    }
    if transaction_hash:
        fields["relay_transaction_hash"] = transaction_hash.lower()
    return bool(SignedStake.objects.filter(pk=signed_stake_id, relay_status__in=_MAY_FOLLOW[status]).update(**fields))


# --- The guess of a stake in the pot (docs/protocol.md 3.2) ------------------------------------


class GuessDoesNotOpenCommitment(Exception):
    """The text and salt do not open the commitment with this payer bound in (422)."""


class StakeNotConfirmed(Exception):
    """No stake of this payer with this commitment is confirmed in the pot yet (409, may pass)."""


class GuessWindowClosing(Exception):
    """Too late for the site to reveal it on chain (409): the player may reveal it themselves."""


@dataclass(frozen=True)
class GuessResult:
    guess: Guess
    created: bool


def guess_submit(*, challenge_id: int, payer: str, commitment: str, text: str, salt: str) -> GuessResult:
    """Keep the guess of the payer's stake(s) with `commitment`, once one is confirmed in the pot."""
    challenge = challenge_published(challenge_id=challenge_id)
    if challenge is None:
        raise ChallengeNotFound
    canonical = parse_coordinates(text).text
    lat_e6, lon_e6 = micro_degrees(canonical)
    opened = guess_commitment(
        chain_id=settings.CHAIN_ID,
        pot=settings.POT_ADDRESS,
        challenge_id=challenge_id,
        payer=payer,
        lat_e6=lat_e6,
        lon_e6=lon_e6,
        salt=salt,
    )
    if opened != commitment:
        raise GuessDoesNotOpenCommitment
    stored = Guess.objects.filter(challenge_id=challenge_id, payer=payer, commitment=commitment).first()
    if stored is not None:
        return GuessResult(stored, created=False)
    clock = chain_clock()
    confirmed = clock.confirmed_block if clock is not None else -1
    if not Stake.objects.filter(
        challenge_id=challenge_id, payer=payer, commitment=commitment, block_number__lte=confirmed
    ).exists():
        raise StakeNotConfirmed
    state = challenge.pot
    if state.finalized_block is not None or (
        state.guess_deadline is not None
        and chain_now(clock) >= state.guess_deadline - timedelta(seconds=settings.GUESS_ACCEPT_MARGIN_SECONDS)
    ):
        raise GuessWindowClosing
    try:
        with transaction.atomic():
            guess = Guess.objects.create(
                challenge_id=challenge_id,
                payer=payer,
                commitment=commitment,
                text=canonical,
                salt=salt,
                lat_e6=lat_e6,
                lon_e6=lon_e6,
            )
    except IntegrityError:
        return GuessResult(Guess.objects.get(challenge_id=challenge_id, payer=payer, commitment=commitment), False)
    if state.solution_lat_e6 is not None:
        guesses_score(
            challenge_id=challenge_id,
            solution=(state.solution_lat_e6, state.solution_lon_e6),
            threshold_m=challenge.proximity_threshold_m or 0,
        )
        guess.refresh_from_db()
    return GuessResult(guess, created=True)


def guesses_score(*, challenge_id: int, solution: tuple[int | None, int | None] | None, threshold_m: int) -> int:
    """The pot's verdict (the integer rule) and the haversine of every guess of the challenge that has
    none, once the solution is on chain; cleared when it is not (a reorg took it). Returns the rows
    written. A guess's verdict is what the pot will say when it is revealed, so the worker reveals
    exactly the winners (chain/pot/steps.py)."""
    guesses = Guess.objects.filter(challenge_id=challenge_id)
    if solution is None or solution[0] is None or solution[1] is None:
        return guesses.exclude(is_correct=None).update(is_correct=None, distance_m=None)
    lat, lon = solution[0], solution[1]
    pending = list(guesses.filter(is_correct=None))
    for guess in pending:
        guess.is_correct = is_correct((guess.lat_e6, guess.lon_e6), (lat, lon), threshold_m)
        metres = haversine_m(guess.lat_e6 / 1e6, guess.lon_e6 / 1e6, lat / 1e6, lon / 1e6)
        guess.distance_m = Decimal(f"{metres:.2f}")
    Guess.objects.bulk_update(pending, ["is_correct", "distance_m"])
    if pending:
        public_answers_mark_stale()
    return len(pending)


# --- Projections of the pot's events (chain/pot/projection.py) ----------------------------------


def stakes_rebuild(*, challenge_id: int, from_block: int, rows: list[dict]) -> None:
    """The stakes of blocks `from_block` and later, as the events now say (earlier blocks are final)."""
    Stake.objects.filter(challenge_id=challenge_id, block_number__gte=from_block).delete()
    Stake.objects.bulk_create([Stake(challenge_id=challenge_id, **row) for row in rows])
    public_answers_mark_stale()


def stakes_mark_revealed(*, challenge_id: int, verdicts: dict[int, bool]) -> None:
    """The pot's verdict of every stake whose guess was revealed on chain; none for the others."""
    stakes = Stake.objects.filter(challenge_id=challenge_id)
    stakes.exclude(seq__in=list(verdicts)).exclude(revealed_correct=None).update(revealed_correct=None)
    for verdict in (True, False):
        seqs = [seq for seq, correct in verdicts.items() if correct is verdict]
        stakes.filter(seq__in=seqs).exclude(revealed_correct=verdict).update(revealed_correct=verdict)


def payments_rebuild(*, challenge_id: int, from_block: int, rows: list[dict]) -> None:
    PotPayment.objects.filter(challenge_id=challenge_id, block_number__gte=from_block).delete()
    PotPayment.objects.bulk_create([PotPayment(challenge_id=challenge_id, **row) for row in rows])
    public_answers_mark_stale()
