from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from .cache import public_json
from .selectors import challenge_get_active, challenge_list_resolved
from .serializers import ChallengeSerializer


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
