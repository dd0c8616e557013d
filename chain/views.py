"""The ledger's public answer: the unclaimed payments of a resolved challenge. It reads ledger rows
(chain.models.Payment), so it lives in this top app (docs/architecture.md, "Layers")."""

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

from .models import Payment
from .selectors import payments_unclaimed_for_challenge


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
