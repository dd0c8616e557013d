from django.core.exceptions import ObjectDoesNotExist
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import AnchorStatus, Challenge


def epoch_seconds(value) -> int | None:
    return int(value.timestamp()) if value else None


class AnchorSerializer(serializers.Serializer):
    """The schema of a challenge's `anchor` (docs/protocol.md section 6)."""

    registry = serializers.CharField(help_text="The registry contract, checksummed.")
    transactionHash = serializers.CharField()
    blockNumber = serializers.IntegerField()
    blockTimestamp = serializers.IntegerField(help_text="Unix seconds.")
    termsSha256 = serializers.CharField()


class ChallengeSerializer(serializers.ModelSerializer):
    """The public face of a challenge. The solution and its salt are null until it is resolved."""

    poemTitle = serializers.CharField(source="poem_title")
    poemText = serializers.CharField(source="poem_text")
    instructionsText = serializers.CharField(source="instructions_text")
    proximityThreshold = serializers.IntegerField(source="proximity_threshold_m", allow_null=True)
    solutionSha256 = serializers.CharField(source="solution_sha256")
    solutionReveal = serializers.SerializerMethodField()
    solutionSalt = serializers.SerializerMethodField()
    stakedSum = serializers.DecimalField(source="staked_sum", max_digits=20, decimal_places=6)
    responseCount = serializers.IntegerField(source="response_count")
    startTimestamp = serializers.SerializerMethodField()
    closedTimestamp = serializers.SerializerMethodField()
    resolvedTimestamp = serializers.SerializerMethodField()
    isDemo = serializers.BooleanField(source="is_demo")
    anchor = serializers.SerializerMethodField()

    class Meta:
        model = Challenge
        fields = [
            "id",
            "poemTitle",
            "poemText",
            "instructionsText",
            "proximityThreshold",
            "solutionSha256",
            "solutionReveal",
            "solutionSalt",
            "stakedSum",
            "responseCount",
            "startTimestamp",
            "closedTimestamp",
            "resolvedTimestamp",
            "status",
            "isDemo",
            "anchor",
        ]

    def get_solutionReveal(self, obj: Challenge) -> str | None:
        return obj.solution if obj.is_resolved else None

    def get_solutionSalt(self, obj: Challenge) -> str | None:
        return obj.solution_salt if obj.is_resolved else None

    def get_startTimestamp(self, obj: Challenge) -> int | None:
        return epoch_seconds(obj.start_timestamp)

    def get_closedTimestamp(self, obj: Challenge) -> int | None:
        """The end of the open window: a payment mined after it is `late` (whole seconds, floored,
        as block times are)."""
        return epoch_seconds(obj.closed_at)

    def get_resolvedTimestamp(self, obj: Challenge) -> int | None:
        return epoch_seconds(obj.resolved_at)

    @extend_schema_field(AnchorSerializer(allow_null=True))
    def get_anchor(self, obj: Challenge) -> dict | None:
        """The anchor of the terms on chain once it is confirmed (docs/protocol.md section 6), else null."""
        try:
            anchor = obj.anchor
        except ObjectDoesNotExist:
            return None
        if anchor.status != AnchorStatus.CONFIRMED:
            return None
        return {
            "registry": anchor.registry_address,
            "transactionHash": anchor.transaction_hash,
            "blockNumber": anchor.block_number,
            "blockTimestamp": epoch_seconds(anchor.block_timestamp),
            "termsSha256": anchor.terms_sha256,
        }
