from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from .cache import public_json
from .models import Challenge, ChallengeStatus
from .payouts import paid_payout_hashes
from .selectors import challenge_get_active, challenge_list_resolved, challenge_winners
from .serializers import ChallengeSerializer, WinnerSerializer, WinnersSerializer


class ActiveChallengeView(APIView):
    @extend_schema(
        operation_id="challenges_active",
        responses={200: OpenApiResponse(ChallengeSerializer, description="The active challenge, or null.")},
    )
    def get(self, request: Request) -> HttpResponse:
        """The challenge open for guesses, or `null` when there is none."""

        def build():
            challenge = challenge_get_active()
            return ChallengeSerializer(challenge).data if challenge else None

        # Public and the same for everyone: cached, invalidated on change (challenges/cache.py).
        return public_json("active", build, request)


class ResolvedChallengesView(APIView):
    @extend_schema(operation_id="challenges_resolved", responses={200: ChallengeSerializer(many=True)})
    def get(self, request: Request) -> HttpResponse:
        """Resolved challenges with their revealed solutions, newest first."""
        return public_json("resolved", lambda: ChallengeSerializer(challenge_list_resolved(), many=True).data)


class ChallengeWinnersView(APIView):
    @extend_schema(operation_id="challenges_winners", responses={200: WinnersSerializer, 404: OpenApiResponse()})
    def get(self, request: Request, challenge_id: int) -> HttpResponse:
        """Both winners of a resolved challenge with distances and prizes, and the operations share."""
        return public_json(f"winners:{challenge_id}", lambda: self.build(challenge_id))

    @staticmethod
    def build(challenge_id: int) -> dict:
        challenge = get_object_or_404(Challenge, pk=challenge_id, status=ChallengeStatus.RESOLVED)
        winners = challenge_winners(challenge=challenge)
        # A prize's payout transaction is public once the chain has shown it paid (challenges/payouts.py).
        paid = paid_payout_hashes(challenge=challenge)

        def winner(response, prize, kind):
            if response is None:
                return None
            context = {"prize": prize, "payout_transaction_hash": paid.get(kind)}
            return WinnerSerializer(response, context=context).data

        return {
            "challengeId": challenge.pk,
            "proximityThreshold": challenge.proximity_threshold_m,
            "totalStaked": str(challenge.staked_sum),
            "responseCount": challenge.response_count,
            "earliest": winner(winners.earliest, winners.earliest_prize, "earliest"),
            "highest": winner(winners.highest, winners.highest_prize, "highest"),
            "operations": str(winners.operations),
            "unallocated": str(winners.unallocated),
        }
