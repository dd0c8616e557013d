"""A challenge as the API shows it (docs/protocol.md 3.6): what staff wrote, the terms it was opened
on in the pot, what the chain has said of it, and its phase. The solution and its salt are null until
the pot shows the solution revealed."""

from decimal import Decimal

from django.conf import settings
from rest_framework import serializers

from .coordinates import text_from_micro
from .models import Challenge, PotState
from .selectors import chain_now, challenge_phase


def epoch_seconds(value) -> int | None:
    return int(value.timestamp()) if value else None


def _usdc(units) -> str:
    return f"{Decimal(units or 0).scaleb(-settings.TOKEN_DECIMALS):.6f}"


class ChallengeSerializer(serializers.Serializer):
    """Read-only: built from a challenge with its `pot` and `opening` (challenges/selectors.py)."""

    def to_representation(self, instance: Challenge) -> dict:
        state: PotState | None = getattr(instance, "pot", None)
        solution = (state.solution_lat_e6, state.solution_lon_e6) if state is not None else (None, None)
        opening = getattr(instance, "opening", None)
        return {
            "id": instance.pk,
            "poemTitle": instance.poem_title,
            "poemText": instance.poem_text,
            "instructionsText": instance.instructions_text,
            "proximityThreshold": instance.proximity_threshold_m,
            "solutionSha256": instance.solution_sha256,
            # What the chain shows, never the database's secret: the two are the same for an honest
            # site, and a verifier compares them.
            "solutionReveal": (
                text_from_micro(solution[0], solution[1])
                if solution[0] is not None and solution[1] is not None
                else None
            ),
            "solutionSalt": instance.solution_salt if solution[0] is not None else None,
            "stakedSum": _usdc(state.staked_units if state else 0),
            "responseCount": state.stake_count if state else 0,
            "startTimestamp": epoch_seconds(instance.opens_at),
            "closesTimestamp": epoch_seconds(instance.closes_at),
            "solutionDeadline": epoch_seconds(instance.solution_deadline),
            "guessWindowSeconds": instance.guess_window_seconds,
            "guessDeadline": epoch_seconds(state.guess_deadline) if state else None,
            "minStake": f"{instance.min_stake:.2f}",
            "bond": f"{instance.bond:.2f}",
            "termsSha256": opening.terms_sha256 if opening else None,
            "termsDigest": (state.terms_digest or None) if state else None,
            "openTransactionHash": (state.opened_transaction or None) if state else None,
            "openBlockNumber": state.opened_block if state else None,
            "phase": challenge_phase(instance, now=chain_now()),
        }
