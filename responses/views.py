"""The stakes' API (docs/protocol.md section 3): a signed stake to relay, the guess of a stake in the
pot, a stake's status, a payer's stakes, the public list once the solution is on chain, and the
winners. Thin: the services and selectors decide."""

import logging
import re

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from challenges.models import Challenge, ChallengeStatus
from challenges.money import token_units
from config.api_errors import ApiError
from config.api_security import CsrfProtected
from config.client_ip import client_key
from config.conditional import conditional_json
from config.public_cache import PublicAnswerView, public_answer
from config.renderers import NullableJSONRenderer

from . import pagination
from .parsers import DecimalJSONParser
from .ports import SignedStakeRequest
from .selectors import (
    challenge_winners,
    stake_by_commitment,
    stake_just_signed,
    stakes_by_address,
    stakes_public,
)
from .serializers import (
    GuessInputSerializer,
    SignedStakeInputSerializer,
    StakeSerializer,
    WinnersSerializer,
    address_value,
)
from .services import (
    AuthorizationsUnavailable,
    AuthorizationsUnsupported,
    BelowChallengeMinimum,
    ChallengeNotFound,
    ChallengeNotTakingStakes,
    CommitmentAlreadySigned,
    GuessDoesNotOpenCommitment,
    GuessWindowClosing,
    StakeNotConfirmed,
    StakeRefused,
    guess_submit,
    signed_stake_submit,
)

logger = logging.getLogger(__name__)
COMMITMENT = re.compile(r"^[0-9a-f]{64}$", re.ASCII)
ERROR_SCHEMA = OpenApiResponse(description='{"message": "...", "errors": {...}}')
REFUSED_SCHEMA = OpenApiResponse(description='{"message": "<the sentence>", "errors": {}, "code": "<code>"}')

STAKE_REFUSALS: dict[type[Exception], tuple[int, str]] = {
    ChallengeNotFound: (404, "Challenge not found."),
    ChallengeNotTakingStakes: (409, "This challenge is not accepting stakes."),
    CommitmentAlreadySigned: (409, "This guess commitment was already signed with another amount or signature."),
    AuthorizationsUnsupported: (409, "This token does not accept payment authorizations."),
    AuthorizationsUnavailable: (503, "Payment authorizations cannot be checked right now."),
}
GUESS_REFUSALS: dict[type[Exception], tuple[int, str, str]] = {
    ChallengeNotFound: (404, "Challenge not found.", ""),
    GuessDoesNotOpenCommitment: (
        422,
        "These coordinates and salt do not open this stake's commitment.",
        "commitment_mismatch",
    ),
    StakeNotConfirmed: (
        409,
        "This stake is not confirmed in the pot yet; the page sends the guess once it is.",
        "stake_not_confirmed",
    ),
    GuessWindowClosing: (
        409,
        "The guess window is closing: Geopoem could not reveal this guess in time. Reveal it on chain yourself.",
        "guess_window_closing",
    ),
}


class StakeThrottle(ScopedRateThrottle):
    """The per-client throttle of the POSTs, counted in the cache (Redis in production). When the cache
    is unreachable the request is let through: a player's signed stake must not be lost to a 500 while
    Redis restarts."""

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # noqa: BLE001 - any cache failure: count nothing, refuse nothing
            logger.warning("stake throttle skipped: cache unavailable (%s)", type(exc).__name__)
            return True

    def get_ident(self, request) -> str:
        return client_key(request)


def _challenge_param(request: Request) -> int | None:
    raw = request.query_params.get("challengeId")
    if raw is not None and not pagination.is_whole_number(raw):
        raise ApiError("challengeId must be a whole number.", errors={"challengeId": ["Not a number."]})
    return int(raw) if raw else None


def _page(request: Request, views: list[dict], *, limit: int, direction: str) -> tuple[list[dict], dict[str, str]]:
    """A keyset page of stake views carrying their row id under "_row" (removed here)."""
    rows = [v for v in views if "_row" in v]
    headers: dict[str, str] = {}
    if len(rows) > limit:
        last = rows[limit - 1]["_row"]
        views = views[: views.index(rows[limit - 1]) + 1]
        headers["Link"] = pagination.next_link(request, last, direction)
    return [{k: v for k, v in view.items() if k != "_row"} for view in views], headers


class ResponseListCreateView(APIView):
    parser_classes = [DecimalJSONParser]
    throttle_scope = "response_create"

    def get_throttles(self):
        return [StakeThrottle()] if self.request.method == "POST" else []

    def get_permissions(self):
        return [CsrfProtected()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="responses_list",
        parameters=[
            OpenApiParameter("challengeId", {"type": "integer", "minimum": 0}, description="Only this challenge."),
            OpenApiParameter(
                "address",
                {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"},
                description="Instead: this payer's stakes, newest first, signed ones not in the pot yet included.",
            ),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": pagination.MAX_LIMIT}),
            OpenApiParameter("cursor", OpenApiTypes.STR, description="From the previous page's Link header."),
        ],
        responses={200: StakeSerializer(many=True), 400: ERROR_SCHEMA},
    )
    def get(self, request: Request) -> HttpResponse:
        """Every stake of the challenges whose solution is on chain, with the guesses the site holds, in
        order; the next page in the Link header. With `address`: that payer's stakes (docs/protocol.md
        3.4 and 3.5), with an ETag, as the page follows them."""
        challenge_id = _challenge_param(request)
        limit = pagination.read_limit(request)
        if "address" in request.query_params:
            try:
                address = address_value(request.query_params["address"])
            except ValidationError as exc:  # the same sentence as in a body: malformed, or a wrong checksum
                sentence = str(exc.detail[0]) if isinstance(exc.detail, list) else "Not an address."
                message = sentence.replace("The wallet address", "address")
                raise ApiError(message, errors={"address": [sentence]}) from None
            before = pagination.read_cursor(request, "before")
            views = stakes_by_address(address=address, challenge_id=challenge_id, after_id=before, limit=limit)
            page, headers = _page(request, views, limit=limit, direction="before")
            answer = conditional_json(request, NullableJSONRenderer().render(page))
            for name, value in headers.items():
                answer[name] = value
            return answer
        else:
            after = pagination.read_cursor(request) or 0
            views = stakes_public(challenge_id=challenge_id, after_id=after, limit=limit)
            page, headers = _page(request, views, limit=limit, direction="after")
        return ApiResponse(page, headers=headers)

    @extend_schema(
        operation_id="responses_create",
        request=SignedStakeInputSerializer,
        responses={
            201: StakeSerializer,
            200: StakeSerializer,
            400: ERROR_SCHEMA,
            403: ERROR_SCHEMA,
            404: ERROR_SCHEMA,
            409: ERROR_SCHEMA,
            413: ERROR_SCHEMA,
            415: ERROR_SCHEMA,
            422: REFUSED_SCHEMA,
            429: ERROR_SCHEMA,
            503: ERROR_SCHEMA,
        },
    )
    def post(self, request: Request) -> ApiResponse:
        """A stake the player signed, for Geopoem's relayer to put in the pot (docs/protocol.md 3.1). No
        guess: the page sends it once the stake is in the pot. The identical stake posted again
        answers 200; one the signature or the chain shows can never be taken answers 422 with a code."""
        serializer = SignedStakeInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        signed = data["authorization"]
        stake = data["submissionStake"]
        stake_request = SignedStakeRequest(
            challenge_id=data["challengeId"],
            payer=data["submitterAddress"],
            amount_units=token_units(stake),
            commitment=data["commitment"],
            valid_after=signed["validAfter"],
            valid_before=signed["validBefore"],
            signature=signed["signature"],
        )
        try:
            result = signed_stake_submit(request=stake_request, stake=stake)
        except StakeRefused as refusal:
            raise ApiError(refusal.sentence, status_code=422, code=refusal.code) from None
        except BelowChallengeMinimum as exc:
            raise ApiError(str(exc), errors={"submissionStake": [str(exc)]}) from None
        except tuple(STAKE_REFUSALS) as refusal:
            status_code, message = STAKE_REFUSALS[type(refusal)]
            raise ApiError(message, status_code=status_code) from None
        body: dict | None
        if result.alone and result.challenge is not None:
            body = stake_just_signed(signed=result.signed_stake, challenge=result.challenge)
        else:
            body = stake_by_commitment(commitment=result.signed_stake.commitment)
        return ApiResponse(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class GuessCreateView(APIView):
    parser_classes = [DecimalJSONParser]
    throttle_scope = "response_create"

    def get_throttles(self):
        return [StakeThrottle()]

    def get_permissions(self):
        return [CsrfProtected()]

    @extend_schema(
        operation_id="responses_guess",
        request=GuessInputSerializer,
        responses={
            201: StakeSerializer,
            200: StakeSerializer,
            400: ERROR_SCHEMA,
            409: REFUSED_SCHEMA,
            422: REFUSED_SCHEMA,
        },
    )
    def post(self, request: Request) -> ApiResponse:
        """The guess of the payer's stake in the pot, once confirmed (docs/protocol.md 3.2): kept secret
        until the solution is revealed, then published and, if it wins, revealed on chain."""
        serializer = GuessInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            result = guess_submit(
                challenge_id=data["challengeId"],
                payer=data["submitterAddress"],
                commitment=data["commitment"],
                text=data["submissionText"],
                salt=data["submissionSalt"],
            )
        except tuple(GUESS_REFUSALS) as refusal:
            status_code, message, code = GUESS_REFUSALS[type(refusal)]
            raise ApiError(message, status_code=status_code, code=code) from None
        body = stake_by_commitment(commitment=result.guess.commitment)
        return ApiResponse(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class StakeStatusView(APIView):
    @extend_schema(
        operation_id="responses_status",
        parameters=[
            OpenApiParameter(
                "commitment",
                {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                OpenApiParameter.PATH,
                description="The guess commitment, 64 lowercase hexadecimal characters (anything else: 400).",
            )
        ],
        responses={200: StakeSerializer, 304: None, 400: ERROR_SCHEMA, 404: ERROR_SCHEMA},
    )
    def get(self, request: Request, commitment: str) -> HttpResponse:
        """The stake with this guess commitment (docs/protocol.md 3.4); ETag and 304."""
        if not COMMITMENT.match(commitment):
            raise ApiError(
                "The commitment must be 64 lowercase hexadecimal characters.",
                errors={"commitment": ["Not a commitment."]},
            )
        body = stake_by_commitment(commitment=commitment)
        if body is None:
            raise ApiError("No stake with this commitment.", status_code=404)
        return conditional_json(request, NullableJSONRenderer().render(body))


class ChallengeWinnersView(PublicAnswerView):
    @extend_schema(operation_id="challenges_winners", responses={200: WinnersSerializer, 404: OpenApiResponse()})
    def get(self, request: Request, challenge_id: int) -> HttpResponse:
        """The winners as the pot holds them, the prizes, and every payment and refund it made."""
        return public_answer(self.public_name(challenge_id=challenge_id), lambda: self.build(challenge_id), request)

    def public_name(self, **kwargs) -> str:
        return f"winners:{kwargs['challenge_id']}"

    @staticmethod
    def build(challenge_id: int) -> dict:
        challenge = get_object_or_404(Challenge, pk=challenge_id, status=ChallengeStatus.PUBLISHED)
        return challenge_winners(challenge=challenge)
