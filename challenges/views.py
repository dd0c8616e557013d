from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from config.public_cache import PublicAnswerView, public_answer

from .selectors import challenge_get_active, challenge_list_resolved
from .serializers import ChallengeSerializer


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

        # Public and the same for everyone: cached, stale on change (config/public_cache.py).
        return public_answer(self.public_name(), build, request)

    def public_name(self, **kwargs) -> str:
        return "active"


class ResolvedChallengesView(PublicAnswerView):
    @extend_schema(operation_id="challenges_resolved", responses={200: ChallengeSerializer(many=True)})
    def get(self, request: Request) -> HttpResponse:
        """Resolved challenges with their revealed solutions, newest first."""
        return public_answer(
            self.public_name(), lambda: ChallengeSerializer(challenge_list_resolved(), many=True).data, request
        )

    def public_name(self, **kwargs) -> str:
        return "resolved"
