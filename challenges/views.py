from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from .cache import public_hit, public_json
from .models import Challenge, ChallengeStatus
from .payouts import paid_payout_hashes
from .selectors import challenge_get_active, challenge_list_resolved, challenge_winners
from .serializers import ChallengeSerializer, WinnerSerializer, WinnersSerializer

# Accept headers under which DRF's negotiation picks the JSON renderer without a doubt (absent:
# wrk, curl; `*/*`: fetch()); any other goes through DRF, which answers 406 when JSON is not acceptable.
_PLAIN_ACCEPT = frozenset({None, "*/*", "application/json"})


class PublicAnswerView(APIView):
    """A public, cached answer (challenges/cache.py). A GET that this process's copy holds is
    answered before DRF's request wrapping and content negotiation, about a fifth of such a request's
    CPU once the Redis round trip is gone (a profile of cached hits, issue 16); the answer is the same
    bytes and headers DRF's path gives. Anything else (a miss, a 404, another method or Accept) goes
    through DRF as before."""

    def public_name(self, **kwargs) -> str:
        raise NotImplementedError

    def dispatch(self, request, *args, **kwargs):
        if request.method == "GET" and request.META.get("HTTP_ACCEPT") in _PLAIN_ACCEPT:
            hit = public_hit(self.public_name(**kwargs), request)
            if hit is not None:
                hit["Allow"] = ", ".join(self.allowed_methods)  # as DRF's finalize_response adds
                return hit
        return super().dispatch(request, *args, **kwargs)


class ActiveChallengeView(PublicAnswerView):
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
        return public_json(self.public_name(), build, request)

    def public_name(self, **kwargs) -> str:
        return "active"


class ResolvedChallengesView(PublicAnswerView):
    @extend_schema(operation_id="challenges_resolved", responses={200: ChallengeSerializer(many=True)})
    def get(self, request: Request) -> HttpResponse:
        """Resolved challenges with their revealed solutions, newest first."""
        return public_json(
            self.public_name(), lambda: ChallengeSerializer(challenge_list_resolved(), many=True).data, request
        )

    def public_name(self, **kwargs) -> str:
        return "resolved"


class ChallengeWinnersView(PublicAnswerView):
    @extend_schema(operation_id="challenges_winners", responses={200: WinnersSerializer, 404: OpenApiResponse()})
    def get(self, request: Request, challenge_id: int) -> HttpResponse:
        """Both winners of a resolved challenge with distances and prizes, and the operations share."""
        return public_json(self.public_name(challenge_id=challenge_id), lambda: self.build(challenge_id), request)

    def public_name(self, *, challenge_id: int, **kwargs) -> str:
        return f"winners:{challenge_id}"

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
