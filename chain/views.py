"""The chain app's public answers: the unclaimed payments of a resolved challenge (ledger rows,
chain.models.Payment) and what the page needs to offer a payment by signed authorization (the
token's domain read from the chain, the relay). They read this top app's parts, so they live here
(docs/architecture.md, "Layers")."""

from decimal import Decimal

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from challenges.models import Challenge, ChallengeStatus
from responses import pagination

from .checks import post_check_client
from .models import Payment
from .relay_admission import relay_available
from .selectors import payments_unclaimed_for_challenge
from .token_domain import TokenDomainUnavailable, token_domain


class UnclaimedPaymentSerializer(serializers.Serializer):
    transactionHash = serializers.CharField(source="transaction_hash")
    logIndex = serializers.IntegerField(source="log_index")
    blockNumber = serializers.IntegerField(source="block_number")
    transactionIndex = serializers.IntegerField(source="transaction_index")
    fromAddress = serializers.CharField(source="from_address")
    amount = serializers.SerializerMethodField(help_text="USDC, 6 decimals, exactly the transfer's token units.")

    def get_amount(self, obj: Payment) -> str:
        return f"{Decimal(obj.amount_units).scaleb(-settings.TOKEN_DECIMALS):.6f}"


class ChallengeUnclaimedView(APIView):
    @extend_schema(
        operation_id="challenges_unclaimed",
        parameters=[
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": pagination.MAX_LIMIT},
                description=f"Page size, 1 to {pagination.MAX_LIMIT} (default {pagination.DEFAULT_LIMIT}).",
            ),
            OpenApiParameter("cursor", str, description="From the previous page's Link header."),
        ],
        responses={200: UnclaimedPaymentSerializer(many=True), 400: OpenApiResponse(), 404: OpenApiResponse()},
    )
    def get(self, request: Request, challenge_id: int) -> ApiResponse:
        """Once the challenge is resolved (404 before): the USDC transfers to the treasury whose
        calldata names it and that no claim of the payer reached the site for, in ledger order; the
        next page in the Link header (docs/protocol.md section 6, "Completeness")."""
        get_object_or_404(Challenge, pk=challenge_id, status=ChallengeStatus.RESOLVED)
        limit = pagination.read_limit(request)
        after_id = pagination.read_cursor(request) or 0
        rows = payments_unclaimed_for_challenge(challenge_id=challenge_id, after_id=after_id)
        page, headers = pagination.keyset_page(request, rows, limit=limit)
        return ApiResponse(UnclaimedPaymentSerializer(page, many=True).data, headers=headers)


class TokenDomainSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The token's name(), read from the chain.")
    version = serializers.CharField(help_text="The token's version(), read from the chain.")
    chainId = serializers.IntegerField()
    verifyingContract = serializers.CharField(help_text="The USDC contract, checksummed.")


class RelaySerializer(serializers.Serializer):
    available = serializers.BooleanField()
    reason = serializers.CharField(help_text="Why not, the sentence a refused claim would get; else empty.")
    address = serializers.CharField(allow_null=True, help_text="The relayer's address, which pays the gas.")


class PaymentAuthorizationSerializer(serializers.Serializer):
    token = TokenDomainSerializer(
        allow_null=True, help_text="The EIP-712 domain to sign under; null: the token takes no authorizations now."
    )
    relay = RelaySerializer()
    validitySeconds = serializers.IntegerField(help_text="How long from now the authorization should be valid.")
    minRemainingSeconds = serializers.IntegerField(help_text="Geopoem refuses one valid for less than this.")


class PaymentAuthorizationView(APIView):
    @extend_schema(operation_id="payments_authorization", responses={200: PaymentAuthorizationSerializer})
    def get(self, request: Request) -> ApiResponse:
        """What the page needs to offer a stake paid by a signed authorization (docs/protocol.md 3.6),
        read live. `token` is null when the token has no transfer authorizations or its domain could
        not be read: the page then offers the direct transfer alone."""
        try:
            domain = token_domain(client=post_check_client())
        except TokenDomainUnavailable:
            domain = None
        relay = relay_available()
        body = {
            "token": domain.as_json() if domain is not None else None,
            "relay": {"available": relay.available, "reason": relay.reason, "address": relay.address},
            "validitySeconds": settings.RELAY_AUTHORIZATION_SECONDS,
            "minRemainingSeconds": settings.RELAY_MIN_REMAINING_SECONDS,
        }
        return ApiResponse(body, headers={"Cache-Control": "no-cache"})
