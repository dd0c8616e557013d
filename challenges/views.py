from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from config.public_cache import PublicAnswerView, public_answer

from .selectors import challenge_get_active, challenge_list_resolved, challenge_published
from .serializers import ChallengeSerializer

CHALLENGE_SCHEMA = OpenApiResponse(description="A challenge (docs/protocol.md 3.6).")


class ActiveChallengeView(PublicAnswerView):
    @extend_schema(operation_id="challenges_active", responses={200: CHALLENGE_SCHEMA})
    def get(self, request: Request) -> HttpResponse:
        """The challenge open for stakes; when none is, the latest still closed or revealing, with its
        phase; else `null`."""

        def build():
            challenge = challenge_get_active()
            return ChallengeSerializer(challenge).data if challenge else None

        # Public and the same for everyone: cached, stale on change (config/public_cache.py).
        return public_answer(self.public_name(), build, request)

    def public_name(self, **kwargs) -> str:
        return "active"


class ResolvedChallengesView(PublicAnswerView):
    @extend_schema(operation_id="challenges_resolved", responses={200: CHALLENGE_SCHEMA})
    def get(self, request: Request) -> HttpResponse:
        """Challenges whose solution is on chain, or that aborted, newest first."""
        return public_answer(
            self.public_name(), lambda: [ChallengeSerializer(c).data for c in challenge_list_resolved()], request
        )

    def public_name(self, **kwargs) -> str:
        return "resolved"


class ChallengeView(PublicAnswerView):
    @extend_schema(operation_id="challenges_one", responses={200: CHALLENGE_SCHEMA, 404: OpenApiResponse()})
    def get(self, request: Request, challenge_id: int) -> HttpResponse:
        """One published challenge, in any phase."""

        def build():
            challenge = challenge_published(challenge_id=challenge_id)
            if challenge is None:
                raise Http404
            return ChallengeSerializer(challenge).data

        return public_answer(self.public_name(challenge_id=challenge_id), build, request)

    def public_name(self, **kwargs) -> str:
        return f"challenge:{kwargs['challenge_id']}"
