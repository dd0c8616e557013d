"""The answers the page follows while a claim is pending (docs/protocol.md 3.4 and 3.4c): one claim
by its transaction (and commitment), or a claim paid by authorization by its commitment alone, each
with its outcome, an ETag and a 304 when unchanged (config/conditional.py)."""

import re

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from config.api_errors import ApiError
from config.conditional import conditional_json
from config.renderers import NullableJSONRenderer

from .models import Response
from .selectors import response_get_by_authorization, response_get_by_hash, response_outcomes
from .serializers import ClaimSerializer
from .views import ERROR_SCHEMA

COMMITMENT = re.compile(r"^[0-9a-fA-F]{64}$", re.ASCII)


def followed_claim(request: Request, response: Response) -> HttpResponse:
    """A claim as its payer follows it (docs/protocol.md 3.4), with its outcome. Asked every ~2 s while
    the claim is pending: an ETag lets an unchanged answer be a 304."""
    body = ClaimSerializer(response, context={"outcomes": response_outcomes(responses=[response])}).data
    return conditional_json(request, NullableJSONRenderer().render(body))


def commitment_parameter(description: str, **kwargs) -> OpenApiParameter:
    return OpenApiParameter(
        "commitment", {"type": "string", "pattern": COMMITMENT.pattern}, description=description, **kwargs
    )


FOLLOWED_CLAIM_SCHEMA = {200: ClaimSerializer, 400: ERROR_SCHEMA, 404: ERROR_SCHEMA}


def commitment_or_400(commitment: str) -> str:
    if not COMMITMENT.match(commitment):
        raise ApiError("commitment must be 64 hexadecimal characters.", errors={"commitment": ["Not a commitment."]})
    return commitment


class ResponseStatusView(APIView):
    @extend_schema(
        operation_id="responses_status",
        parameters=[
            commitment_parameter(
                "The guess commitment of the claim asked about (64 hex characters). Without it: the "
                "transaction's confirmed claim, else its only claim; 404 when several claims wait on it."
            )
        ],
        responses=FOLLOWED_CLAIM_SCHEMA,
    )
    def get(self, request: Request, transaction_hash: str) -> HttpResponse:
        """A claim's status and rejection reason; its coordinates and outcome only once the challenge
        is resolved."""
        commitment = request.query_params.get("commitment")
        if commitment is not None:
            commitment_or_400(commitment)
        response = response_get_by_hash(transaction_hash=transaction_hash, commitment=commitment)
        if response is None:
            raise ApiError("No submission uses this transaction.", status_code=404)
        return followed_claim(request, response)


class AuthorizationClaimStatusView(APIView):
    @extend_schema(
        operation_id="responses_authorization_status",
        parameters=[
            commitment_parameter(
                "The claim's guess commitment, its authorization's nonce (64 hex characters).",
                location=OpenApiParameter.PATH,
            )
        ],
        responses=FOLLOWED_CLAIM_SCHEMA,
    )
    def get(self, request: Request, commitment: str) -> HttpResponse:
        """The claim paid by authorization whose commitment this is: its status, its relay, and its
        coordinates and outcome once the challenge is resolved (docs/protocol.md 3.4c). Its
        transaction is not known until someone uses the authorization on chain."""
        response = response_get_by_authorization(commitment=commitment_or_400(commitment))
        if response is None:
            raise ApiError("No submission paid by authorization has this commitment.", status_code=404)
        return followed_claim(request, response)
