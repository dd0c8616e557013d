"""The chain app's public answer: what the page needs to offer a stake by signature (docs/protocol.md
3.3: the token's domain read from the chain, the relay). It reads this top app's parts, so it lives
here (docs/architecture.md, "Layers")."""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from .pot.port import post_client
from .relayer.admission import relay_available
from .token.domain import TokenDomainUnavailable, token_domain


class TokenDomainSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The token's name(), read from the chain.")
    version = serializers.CharField(help_text="The token's version(), read from the chain.")
    chainId = serializers.IntegerField()
    verifyingContract = serializers.CharField(help_text="The USDC contract, checksummed.")


class RelaySerializer(serializers.Serializer):
    available = serializers.BooleanField()
    reason = serializers.CharField(help_text="Why not, the sentence a refused stake would get; else empty.")
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
        """What the page needs to offer a stake by signature (docs/protocol.md 3.3), read live. `token`
        is null when the token has no transfer authorizations or its domain could not be read: the
        page then offers the stake by approval alone."""
        try:
            domain = token_domain(client=post_client())
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
