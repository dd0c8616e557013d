import logging
import re

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from challenges.models import Challenge, ChallengeStatus
from challenges.payouts import paid_payout_hashes, payouts_public
from config.api_errors import ApiError
from config.api_security import CsrfProtected
from config.client_ip import client_key
from config.public_cache import PublicAnswerView, public_answer

from . import pagination
from .authorizations import (
    AuthorizationAlreadyUsed,
    AuthorizationsUnavailable,
    AuthorizationsUnsupported,
    PostedAuthorization,
    response_create_by_authorization,
)
from .exceptions import exceptions_of
from .parsers import DecimalJSONParser
from .reasons import REASON_SENTENCES
from .selectors import (
    challenge_winners,
    response_list_by_address,
    response_list_public,
    response_list_rejected,
    response_outcomes,
)
from .serializers import (
    ClaimSerializer,
    RejectedResponseSerializer,
    ResolutionExceptionSerializer,
    ResponseCreateInputSerializer,
    ResponseSerializer,
    ScoredResponseSerializer,
    WinnerSerializer,
    WinnersSerializer,
)
from .services import (
    ChallengeNotFound,
    ChallengeNotOpen,
    ClaimCannotMatch,
    TransactionAlreadyUsed,
    claim_guess,
    response_create,
)

# What a claim that is not stored answers, beside a 422 with its reason (docs/protocol.md 3.3, 3.3a).
CLAIM_REFUSALS: dict[type[Exception], tuple[int, str]] = {
    ChallengeNotFound: (404, "Challenge not found."),
    ChallengeNotOpen: (409, "This challenge is not accepting submissions."),
    TransactionAlreadyUsed: (409, "This transaction has already been used for a submission."),
    AuthorizationAlreadyUsed: (409, "This authorization has already been used for a submission."),
    AuthorizationsUnsupported: (409, "This token does not accept payment authorizations."),
    AuthorizationsUnavailable: (503, "Payment authorizations cannot be checked right now."),
}

ERROR_SCHEMA = OpenApiResponse(description='{"message": "...", "errors": {...}}')
REFUSED_SCHEMA = OpenApiResponse(
    description='The chain shows this claim can never be confirmed; nothing was stored: {"message": "<the reason\'s '
    'sentence>", "errors": {}, "code": "<code>"}. A transaction: wrong_sender, commitment_mismatch or '
    "challenge_mismatch; an authorization: invalid_authorization, authorization_window, authorization_cancelled or "
    "insufficient_balance."
)
CONFLICT_SCHEMA = OpenApiResponse(
    description="The challenge is not accepting submissions; or the same guess with another stake; or a transaction or "
    'an authorization already used for a submission; or a token without payment authorizations: {"message", "errors"}.'
)
UNAVAILABLE_SCHEMA = OpenApiResponse(
    description='Payment authorizations cannot be checked right now: {"message", "errors"}.'
)
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$", re.ASCII)
logger = logging.getLogger(__name__)


class ClaimThrottle(ScopedRateThrottle):
    """The per-client claim throttle, counted in the cache (Redis in production). When the cache is
    unreachable the claim is let through: a player who paid must not lose the claim to a 500 while
    Redis restarts (tests/reliability/test_faults.py::test_redis_stopped_while_claims_arrive)."""

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # noqa: BLE001 - any cache failure: count nothing, refuse nothing
            logger.warning("claim throttle skipped: cache unavailable (%s)", type(exc).__name__)
            return True

    def get_ident(self, request) -> str:
        # Behind TRUSTED_PROXY_HOPS proxies (a forged X-Forwarded-For is not read); an IPv6 client
        # counted by its /64, which it holds whole.
        return client_key(request)


class ResponseListCreateView(APIView):
    parser_classes = [DecimalJSONParser]
    throttle_scope = "response_create"

    def get_throttles(self):
        return [ClaimThrottle()] if self.request.method == "POST" else []

    def get_permissions(self):
        return [CsrfProtected()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="responses_list",
        parameters=[
            OpenApiParameter(
                "challengeId", {"type": "integer", "minimum": 0}, description="Only this challenge's responses."
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": pagination.MAX_LIMIT},
                description=f"Page size, 1 to {pagination.MAX_LIMIT}.",
            ),
            OpenApiParameter("cursor", OpenApiTypes.STR, description="From the previous page's Link header."),
            OpenApiParameter(
                "address",
                {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"},
                description="Instead: every claim naming this payer address, any status, newest first, "
                "coordinates only once the challenge is resolved (My submissions on another device). "
                "Claims rejected as not the payer's (wrong_sender, commitment_mismatch) are left out. "
                "With challengeId too: only that challenge's. Each claim carries its `outcome` once the "
                "challenge is resolved.",
            ),
            OpenApiParameter(
                "status",
                {"type": "string", "enum": ["confirmed", "rejected"], "default": "confirmed"},
                description="confirmed (default): the scored responses. rejected: the rejected claims of "
                "resolved challenges with their texts, salts and rejectionCode (same fields as a claim, plus "
                "submissionSalt, blockNumber, transactionIndex, logIndex where known), so that every payment "
                "naming a challenge can be accounted for (docs/protocol.md section 6). Nothing before "
                "resolution.",
            ),
        ],
        responses={
            200: OpenApiResponse(
                ScoredResponseSerializer(many=True),
                description="status=confirmed: scored responses; status=rejected: RejectedResponse objects; "
                "address=: Claim objects (with outcome).",
            ),
            400: ERROR_SCHEMA,
        },
    )
    def get(self, request: Request) -> ApiResponse:
        """Confirmed responses of resolved challenges, oldest first; next page in the Link header.
        `status=rejected`: their rejected claims instead. With `address`: that payer's claims of any
        status, newest first (docs/protocol.md, sections 3 and 6)."""
        wanted = request.query_params.get("status", "confirmed")
        if wanted not in ("confirmed", "rejected"):
            raise ApiError("status must be confirmed or rejected.", errors={"status": ["Not a listed status."]})
        if "address" in request.query_params:
            return self._by_address(request)  # every status of that payer's claims: `status` is not read
        raw_challenge = request.query_params.get("challengeId")
        if raw_challenge is not None and not pagination.is_whole_number(raw_challenge):
            raise ApiError("challengeId must be a whole number.", errors={"challengeId": ["Not a number."]})
        limit = pagination.read_limit(request)
        after_id = pagination.read_cursor(request) or 0
        challenge_id = int(raw_challenge) if raw_challenge else None
        listing = response_list_rejected if wanted == "rejected" else response_list_public
        serializer = RejectedResponseSerializer if wanted == "rejected" else ScoredResponseSerializer
        page, headers = pagination.keyset_page(
            request, listing(challenge_id=challenge_id, after_id=after_id), limit=limit
        )
        return ApiResponse(serializer(page, many=True).data, headers=headers)

    def _by_address(self, request: Request) -> ApiResponse:
        address = request.query_params["address"]
        if not ADDRESS.match(address):
            raise ApiError(
                "address must be 0x followed by 40 hexadecimal characters.", errors={"address": ["Not an address."]}
            )
        raw_challenge = request.query_params.get("challengeId")
        if raw_challenge is not None and not pagination.is_whole_number(raw_challenge):
            raise ApiError("challengeId must be a whole number.", errors={"challengeId": ["Not a number."]})
        limit = pagination.read_limit(request)
        before = pagination.read_cursor(request, "before")
        claims = response_list_by_address(
            address=address, challenge_id=int(raw_challenge) if raw_challenge else None, before_id=before
        )
        page, headers = pagination.keyset_page(request, claims, limit=limit, direction="before")
        # Coordinates and the outcome only once the challenge is resolved.
        outcomes = response_outcomes(responses=page)
        return ApiResponse(ClaimSerializer(page, many=True, context={"outcomes": outcomes}).data, headers=headers)

    @extend_schema(
        operation_id="responses_create",
        request=ResponseCreateInputSerializer,
        responses={
            201: ResponseSerializer,
            200: ResponseSerializer,
            400: ERROR_SCHEMA,
            403: ERROR_SCHEMA,
            404: ERROR_SCHEMA,
            409: CONFLICT_SCHEMA,
            413: ERROR_SCHEMA,
            422: REFUSED_SCHEMA,
            415: ERROR_SCHEMA,
            429: ERROR_SCHEMA,
            503: UNAVAILABLE_SCHEMA,
        },
    )
    def post(self, request: Request) -> ApiResponse:
        """Record a claim for a stake transaction (`transactionHash`) or for a signed authorization
        Geopoem's relayer sends (`authorization`). It is `pending` until the chain confirms it.
        Re-posting the identical claim answers 200 with the stored one; another claim on a hash whose
        claim is confirmed, or on an authorization already claimed, answers 409; a claim the chain
        shows cannot match answers 422 with its reason code and is not stored (docs/protocol.md,
        sections 3.3 and 3.3a)."""
        serializer = ResponseCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        claim = {
            "challenge_id": data["challengeId"],
            "submission_text": data["submissionText"],
            "submission_stake": data["submissionStake"],
            "submitter_address": data["submitterAddress"],
            "submission_salt": data["submissionSalt"],
        }
        signed = data.get("authorization")
        try:
            if signed is None:
                result = response_create(**claim, transaction_hash=data["transactionHash"])
            else:
                posted = PostedAuthorization(
                    valid_after=signed["validAfter"], valid_before=signed["validBefore"], signature=signed["signature"]
                )
                result = response_create_by_authorization(guess=claim_guess(**claim), authorization=posted)
        except ClaimCannotMatch as refusal:
            raise ApiError(REASON_SENTENCES[refusal.code], status_code=422, code=refusal.code) from None
        except tuple(CLAIM_REFUSALS) as refusal:
            status_code, message = CLAIM_REFUSALS[type(refusal)]
            raise ApiError(message, status_code=status_code) from None
        body = ResponseSerializer(result.response, context={"reveal_text": True}).data
        return ApiResponse(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class ChallengeWinnersView(PublicAnswerView):
    @extend_schema(operation_id="challenges_winners", responses={200: WinnersSerializer, 404: OpenApiResponse()})
    def get(self, request: Request, challenge_id: int) -> HttpResponse:
        """Both winners of a resolved challenge with distances and prizes, and the operations share."""
        return public_answer(self.public_name(challenge_id=challenge_id), lambda: self.build(challenge_id), request)

    def public_name(self, **kwargs) -> str:
        return f"winners:{kwargs['challenge_id']}"

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
            # Every prize and how far its payment got (docs/protocol.md section 6, "Payouts"). A payout's
            # change makes this answer stale (config/public_cache.py).
            "payouts": payouts_public(challenge=challenge),
            # What the chain changed after resolution started, which moved no sum (responses/barrier.py);
            # recording one makes this answer stale (responses/exceptions.py).
            "exceptions": ResolutionExceptionSerializer(exceptions_of(challenge=challenge), many=True).data,
        }
