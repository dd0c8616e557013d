"""The game's next steps, which anyone may take and Geopoem's worker takes for everyone (docs/protocol.md
section 2, "Reveals" and "Settlement"): after each round of the follower, every challenge not settled
is looked at with the chain's clock, and what it needs next is queued as a call of the pot for the
relayer (chain/relayer/outbox.py): the solution's reveal once the close is deep, the reveals of the
winning guesses the site holds, `finalize` after the guess window, then each payment or refund.

Each step is queued once (a call's key is unique while it is active) and only while the pot's state,
as the follower last read it, still needs it; a call that failed is queued again after
POT_STEP_RETRY_SECONDS (a paused token, a node refusing), and so is one that was mined but whose
effect the follower has not seen since (its block left the chain)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q

from challenges.models import Challenge, ChallengeStatus, OpeningStatus, PotState
from challenges.selectors import Phase, chain_clock, challenge_phase
from responses.models import Guess, PotPayment, Stake

from ..models import PotCall, PotCallKind, PotCallStatus
from ..relayer.outbox import call_queue
from . import abi

logger = logging.getLogger(__name__)

EARLIEST, HIGHEST = 0, 1


def pot_steps() -> list[str]:
    """Queue what every live challenge needs next; returns the keys queued."""
    clock = chain_clock()
    if clock is None or not settings.POT_ADDRESS:
        return []
    queued: list[str] = []
    challenges = Challenge.objects.filter(
        status=ChallengeStatus.PUBLISHED, opening__status=OpeningStatus.CONFIRMED, pot__settled=False
    ).select_related("pot", "opening")
    for challenge in challenges:
        phase = challenge_phase(challenge, now=clock.block_time)
        state: PotState = challenge.pot
        if phase == Phase.CLOSED and state.close_block is not None and state.close_block <= clock.confirmed_block:
            queued += _reveal_solution(challenge)
        elif phase == Phase.REVEALING:
            queued += _reveal_winners(challenge, state)
        elif phase == Phase.FINAL and state.finalized_block is None:
            queued += _queue(
                challenge,
                PotCallKind.FINALIZE,
                f"finalize:{challenge.pk}",
                abi.finalize_data(challenge_id=challenge.pk),
            )
        elif phase == Phase.FINAL:
            queued += _settle(challenge, state, aborted=False)
        elif phase == Phase.ABORTED:
            queued += _settle(challenge, state, aborted=True)
    return queued


def _queue(challenge: Challenge, kind: str, key: str, data: str) -> list[str]:
    """Queue the call unless one with this key is active, or failed or was mined too recently."""
    recent = PotCall.objects.filter(key=key).order_by("-id").first()
    if recent is not None:
        if recent.status in (PotCallStatus.QUEUED, PotCallStatus.SENT):
            return []
        retry_after = recent.updated_at + timedelta(seconds=settings.POT_STEP_RETRY_SECONDS)
        if recent.status != PotCallStatus.NOT_NEEDED and retry_after > _now():
            return []
    call = call_queue(kind=kind, key=key, challenge_id=challenge.pk, data=data)
    return [key] if call is not None else []


def _now():
    from django.utils import timezone

    return timezone.now()


def _reveal_solution(challenge: Challenge) -> list[str]:
    from challenges.coordinates import micro_degrees

    lat_e6, lon_e6 = micro_degrees(challenge.solution)
    data = abi.reveal_solution_data(
        challenge_id=challenge.pk, lat_e6=lat_e6, lon_e6=lon_e6, salt=challenge.solution_salt
    )
    return _queue(challenge, PotCallKind.REVEAL_SOLUTION, f"reveal_solution:{challenge.pk}", data)


def _reveal_winners(challenge: Challenge, state: PotState) -> list[str]:
    """Reveal the held guesses that beat the pot's best so far: the earliest correct and the highest
    staked correct (ties to the lower sequence) among the stakes whose guess the site holds."""
    correct = {(g.payer, g.commitment): g for g in Guess.objects.filter(challenge_id=challenge.pk, is_correct=True)}
    if not correct:
        return []
    stakes = [
        s
        for s in Stake.objects.filter(challenge_id=challenge.pk, revealed_correct=None).filter(
            Q(commitment__in={c for _, c in correct})
        )
        if (s.payer, s.commitment) in correct
    ]
    if not stakes:
        return []
    amounts = dict(
        Stake.objects.filter(challenge_id=challenge.pk, seq__in=[x for x in (state.highest_seq,) if x]).values_list(
            "seq", "amount_units"
        )
    )
    chosen = set()
    earliest = min(stakes, key=lambda s: s.seq)
    if state.earliest_seq is None or earliest.seq < state.earliest_seq:
        chosen.add(earliest.seq)
    highest = min(stakes, key=lambda s: (-int(s.amount_units), s.seq))
    best = (int(amounts.get(state.highest_seq, 0)), -(state.highest_seq or 0)) if state.highest_seq else None
    if best is None or (int(highest.amount_units), -highest.seq) > best:
        chosen.add(highest.seq)
    queued: list[str] = []
    for stake in (s for s in stakes if s.seq in chosen):
        guess = correct[(stake.payer, stake.commitment)]
        data = abi.reveal_guess_data(
            challenge_id=challenge.pk,
            seq=stake.seq,
            payer=stake.payer,
            amount=int(stake.amount_units),
            lat_e6=guess.lat_e6,
            lon_e6=guess.lon_e6,
            salt=guess.salt,
        )
        queued += _queue(challenge, PotCallKind.REVEAL_GUESS, f"reveal_guess:{challenge.pk}:{stake.seq}", data)
    return queued


def _settle(challenge: Challenge, state: PotState, *, aborted: bool) -> list[str]:
    """Each payment the pot owes, its own call: both prizes and the share; or every refund."""
    paid = PotPayment.objects.filter(challenge_id=challenge.pk)
    kinds = set(paid.values_list("kind", flat=True))
    queued: list[str] = []
    has_winner = not aborted and state.earliest_seq is not None
    if has_winner:
        for kind, name, seq in ((EARLIEST, "earliest", state.earliest_seq), (HIGHEST, "highest", state.highest_seq)):
            stake = Stake.objects.filter(challenge_id=challenge.pk, seq=seq).first() if seq is not None else None
            if name in kinds or stake is None:
                continue
            data = abi.pay_prize_data(
                challenge_id=challenge.pk,
                kind=kind,
                payer=stake.payer,
                amount=int(stake.amount_units),
                commitment=stake.commitment,
            )
            queued += _queue(challenge, PotCallKind.PAY_PRIZE, f"pay_prize:{challenge.pk}:{kind}", data)
    else:
        refunded = set(paid.filter(kind="refund").values_list("seq", flat=True))
        for stake in Stake.objects.filter(challenge_id=challenge.pk).exclude(seq__in=refunded):
            data = abi.refund_data(
                challenge_id=challenge.pk,
                seq=stake.seq,
                payer=stake.payer,
                amount=int(stake.amount_units),
                commitment=stake.commitment,
            )
            queued += _queue(challenge, PotCallKind.REFUND, f"refund:{challenge.pk}:{stake.seq}", data)
    share_owed = has_winner or (challenge.bond > 0 and not (aborted and state.stake_count > 0))
    if share_owed and "share" not in kinds:
        queued += _queue(
            challenge, PotCallKind.PAY_SHARE, f"pay_share:{challenge.pk}", abi.pay_share_data(challenge_id=challenge.pk)
        )
    return queued
