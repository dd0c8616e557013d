"""What the site shows, rebuilt from the pot's events (chain/models.py, PotEvent): the stakes and the
payments of a challenge (responses), its pot state (challenges.PotState), its opening's confirmation,
and the verdicts of the guesses the site holds once the solution is on chain. Only the follower calls
this (chain/pot/follow.py), inside its round's transaction.

The chain decides everything here; this module only copies it. The one computation, the verdicts of
guesses the chain has not seen revealed, uses the contract's own integer rule (challenges/geometry.py)
so that the site reveals exactly the guesses the pot will count as correct."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import Count, Sum

from challenges.models import Challenge, ChallengeStatus, OpeningStatus, PotOpening, PotState
from challenges.selectors import challenge_phase
from challenges.services import opening_confirmed, opening_failed, pot_state_write
from config.public_cache import public_answers_mark_stale
from responses.models import PotPayment, Stake
from responses.services import guesses_score, payments_rebuild, stakes_mark_revealed, stakes_rebuild

from ..models import PotEvent

EARLIEST, HIGHEST, SHARE = 0, 1, 2


@dataclass(frozen=True)
class Head:
    number: int
    time: datetime
    confirmed: int  # the highest block deep enough to count


def project_challenges(*, touched: set[int], start: int, head: Head, since: datetime | None = None) -> set[int]:
    """Rebuild the projections of the challenges whose events changed (from block `start`), and the
    state of every challenge not settled yet. Returns the challenges whose state changed, or whose
    phase the chain's clock alone moved since the head read before (`since`, its block time)."""
    known = set(Challenge.objects.filter(status=ChallengeStatus.PUBLISHED).values_list("pk", flat=True))
    live = set(PotState.objects.filter(settled=False, challenge_id__in=known).values_list("challenge_id", flat=True))
    changed: set[int] = set()
    for challenge_id in sorted((touched & known) | live):
        if challenge_id in touched:
            _rebuild_rows(challenge_id, start=start)
        if _project_state(challenge_id, head=head, since=since):
            changed.add(challenge_id)
    return changed | (touched & known)


def _events(challenge_id: int, name: str, *, since: int = 0) -> list[PotEvent]:
    return list(PotEvent.objects.filter(challenge_id=challenge_id, name=name, block_number__gte=since))


def _rebuild_rows(challenge_id: int, *, start: int) -> None:
    stakes_rebuild(
        challenge_id=challenge_id,
        from_block=start,
        rows=[
            {
                "seq": int(e.args["seq"]),
                "payer": e.args["payer"],
                "amount_units": int(e.args["amount"]),
                "commitment": e.args["commitment"],
                "transaction_hash": e.transaction_hash,
                "block_number": e.block_number,
                "block_hash": e.block_hash,
                "log_index": e.log_index,
                "block_time": e.block_time,
            }
            for e in _events(challenge_id, "Staked", since=start)
        ],
    )
    stakes_mark_revealed(
        challenge_id=challenge_id,
        verdicts={int(e.args["seq"]): bool(e.args["correct"]) for e in _events(challenge_id, "GuessRevealed")},
    )
    payments = []
    for e in PotEvent.objects.filter(challenge_id=challenge_id, name__in=["Paid", "Refunded"], block_number__gte=start):
        common = {"transaction_hash": e.transaction_hash, "block_number": e.block_number, "log_index": e.log_index}
        if e.name == "Paid":
            kind = {EARLIEST: "earliest", HIGHEST: "highest", SHARE: "share"}[int(e.args["kind"])]
            payments.append(
                {"kind": kind, "seq": None, "to": e.args["to"], "amount_units": int(e.args["amount"]), **common}
            )
        else:
            payments.append(
                {
                    "kind": "refund",
                    "seq": int(e.args["seq"]),
                    "to": e.args["payer"],
                    "amount_units": int(e.args["stake"]),
                    "bond_units": int(e.args["bondShare"]),
                    **common,
                }
            )
    payments_rebuild(challenge_id=challenge_id, from_block=start, rows=payments)


def _best(challenge_id: int) -> tuple[int | None, int | None]:
    """The pot's rule over the correct reveals: the lowest sequence; the highest amount, ties to the
    lower sequence. Replayed from the events, in any order, as the contract keeps it."""
    correct = {int(e.args["seq"]) for e in _events(challenge_id, "GuessRevealed") if e.args["correct"]}
    if not correct:
        return None, None
    amounts = dict(Stake.objects.filter(challenge_id=challenge_id, seq__in=correct).values_list("seq", "amount_units"))
    highest = min(correct, key=lambda seq: (-int(amounts.get(seq, 0)), seq))
    return min(correct), highest


def _project_state(challenge_id: int, *, head: Head, since: datetime | None = None) -> bool:
    challenge = Challenge.objects.get(pk=challenge_id)
    state = PotState.objects.filter(challenge_id=challenge_id).first()
    opened = next(iter(_events(challenge_id, "Opened")), None)
    solution = next(iter(_events(challenge_id, "SolutionRevealed")), None)
    finalized = next(iter(_events(challenge_id, "Finalized")), None)
    counted = Stake.objects.filter(challenge_id=challenge_id, block_number__lte=head.confirmed).aggregate(
        units=Sum("amount_units"), count=Count("pk")
    )
    earliest, highest = _best(challenge_id)
    close_block = state.close_block if state is not None else None
    if close_block is None and challenge.closes_at is not None and head.time >= challenge.closes_at:
        close_block = head.number
    values = {
        "opened_block": opened.block_number if opened else None,
        "opened_transaction": opened.transaction_hash if opened else "",
        "terms_digest": opened.args["termsDigest"] if opened else "",
        "staked_units": counted["units"] or 0,
        "stake_count": counted["count"] or 0,
        "close_block": close_block,
        "solution_lat_e6": int(solution.args["latE6"]) if solution else None,
        "solution_lon_e6": int(solution.args["lonE6"]) if solution else None,
        "solution_block": solution.block_number if solution else None,
        "guess_deadline": (datetime.fromtimestamp(int(solution.args["guessDeadline"]), tz=UTC) if solution else None),
        "earliest_seq": earliest,
        "highest_seq": highest,
        "finalized_block": finalized.block_number if finalized else None,
        "settled": _settled(challenge, finalized=finalized is not None, has_winner=earliest is not None, head=head),
    }
    changed = pot_state_write(challenge_id=challenge_id, values=values)
    if not changed and since is not None:
        # A deadline passed with no event (an abort, the guess window's end): the phase shown moved.
        challenge.refresh_from_db()
        if challenge_phase(challenge, now=since) != challenge_phase(challenge, now=head.time):
            public_answers_mark_stale()
            changed = True
    _opening(challenge_id, opened, head=head)
    guesses_score(
        challenge_id=challenge_id,
        solution=(int(solution.args["latE6"]), int(solution.args["lonE6"])) if solution else None,
        threshold_m=challenge.proximity_threshold_m or 0,
    )
    return changed


def _settled(challenge: Challenge, *, finalized: bool, has_winner: bool, head: Head) -> bool:
    """Everything the pot owed for this challenge is paid: both prizes and the share (when there was a
    winner), or every stake refunded and the bond returned (when there was none, or it aborted)."""
    payments = PotPayment.objects.filter(challenge_id=challenge.pk)
    kinds = set(payments.values_list("kind", flat=True))
    bond = challenge.bond > 0
    if finalized and has_winner:
        return {"earliest", "highest", "share"} <= kinds
    aborted = (
        not finalized
        and not PotEvent.objects.filter(challenge_id=challenge.pk, name="SolutionRevealed").exists()
        and challenge.solution_deadline is not None
        and head.time >= challenge.solution_deadline
    )
    if not (finalized or aborted):
        return False
    refunded = payments.filter(kind="refund").count()
    stakes = Stake.objects.filter(challenge_id=challenge.pk).count()
    if refunded < stakes:
        return False
    # The bond goes back through the share when nobody won, or when an abort had no stake to share it.
    return not bond or stakes > 0 and aborted or "share" in kinds


def _opening(challenge_id: int, opened: PotEvent | None, *, head: Head) -> None:
    """Confirm the opening once its Opened event is deep enough and holds the terms sent; an Opened
    event with other terms for this id (the first open wins) fails it, for staff to see."""
    opening = PotOpening.objects.filter(challenge_id=challenge_id).first()
    if opening is None or opened is None or opening.status == OpeningStatus.CONFIRMED:
        return
    if opened.block_number > head.confirmed:
        return
    sent = opening.terms
    on_chain = opened.args["terms"]
    same = all(
        str(on_chain[key]).lower() == str(sent[field]).lower()
        for key, field in (
            ("solutionCommitment", "solution_commitment"),
            ("termsHash", "terms_hash"),
            ("thresholdM", "threshold_m"),
            ("opensAt", "opens_at"),
            ("closesAt", "closes_at"),
            ("solutionDeadline", "solution_deadline"),
            ("guessWindow", "guess_window"),
            ("minStake", "min_stake"),
            ("bond", "bond"),
        )
    )
    if same:
        opening_confirmed(
            challenge_id=challenge_id, transaction_hash=opened.transaction_hash, block_number=opened.block_number
        )
    else:
        opening_failed(
            challenge_id=challenge_id,
            error=f"The pot holds other terms for challenge {challenge_id} (opened in block {opened.block_number}); "
            "the first open of an id wins, so this challenge cannot take stakes.",
        )
