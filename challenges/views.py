from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from .cache import public_hit, public_json
from .selectors import challenge_get_active, challenge_list_resolved
from .serializers import ChallengeSerializer

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
