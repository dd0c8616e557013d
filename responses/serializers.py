import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from eth_utils import is_checksum_address, to_checksum_address
from rest_framework import serializers

from challenges.commitments import is_salt
from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, parse_coordinates

from .models import PaymentMethod, Response
from .stakes import StakeError, parse_stake, stake_step_error

TX_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$", re.ASCII)
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$", re.ASCII)
SIGNATURE = re.compile(r"^0x[0-9a-fA-F]{130}$", re.ASCII)
UINT256_MAX = 2**256 - 1
ONE_PAYMENT = "Send either transactionHash (a payment sent) or authorization (a payment signed), not both."
NO_PAYMENT = "Send transactionHash (a payment sent) or authorization (a payment signed)."


@extend_schema_field(OpenApiTypes.STR)
class StakeField(serializers.Field):
    """A USDC amount as a decimal string (a JSON number is accepted; it was parsed as Decimal)."""

    def to_internal_value(self, data: object):
        try:
            amount = parse_stake(data)
        except StakeError as exc:
            raise serializers.ValidationError(str(exc)) from None
        if step_error := stake_step_error(amount):
            raise serializers.ValidationError(step_error)
        return amount

    def to_representation(self, value) -> str:
        return str(value)


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": UINT256_MAX})
class UnixSecondsField(serializers.Field):
    """Unix seconds as a JSON integer, in the token's uint256 range (a string or a fraction is refused:
    the signed value is this very number)."""

    def to_internal_value(self, data: object) -> int:
        if not isinstance(data, int) or isinstance(data, bool) or not 0 <= data <= UINT256_MAX:
            raise serializers.ValidationError("Unix seconds must be a whole number from 0 to 2^256 - 1.")
        return data

    def to_representation(self, value: int) -> int:
        return value


class ClaimAuthorizationInputSerializer(serializers.Serializer):
    """A signed EIP-3009 authorization paying the claim (docs/protocol.md 3.3a): what the payer signed
    is rebuilt from the claim (from its address, to the treasury, the stake, nonce its commitment)."""

    validAfter = UnixSecondsField(help_text="Unix seconds; the page sends 0.")
    validBefore = UnixSecondsField(help_text="Unix seconds, when the authorization expires.")
    signature = serializers.CharField(max_length=132, help_text="0x + 130 hex characters: r, s, v.")

    def validate_signature(self, value: str) -> str:
        if not SIGNATURE.match(value):
            raise serializers.ValidationError("The signature must be 0x followed by 130 hexadecimal characters.")
        return value.lower()


class ResponseCreateInputSerializer(serializers.Serializer):
    """The claim a player's browser posts after its stake transaction is mined (`transactionHash`),
    or with the signed authorization that pays it (`authorization`): exactly one of the two."""

    challengeId = serializers.IntegerField(min_value=1)
    submissionText = serializers.CharField(max_length=100, trim_whitespace=False, help_text='"lat, lon"')
    submissionStake = StakeField(help_text='USDC as a decimal string, e.g. "12.50".')
    transactionHash = serializers.CharField(
        max_length=66, required=False, allow_null=True, help_text="The stake's transaction; or send authorization."
    )
    authorization = ClaimAuthorizationInputSerializer(
        required=False, allow_null=True, help_text="A payment signed for Geopoem's relayer; or send transactionHash."
    )
    submitterAddress = serializers.CharField(max_length=42)
    submissionSalt = serializers.CharField(max_length=64, help_text="64 lowercase hex characters.")

    def validate(self, attrs: dict) -> dict:
        has_hash, has_authorization = attrs.get("transactionHash") is not None, attrs.get("authorization") is not None
        if has_hash and has_authorization:
            raise serializers.ValidationError({"authorization": [ONE_PAYMENT]})
        if not has_hash and not has_authorization:
            raise serializers.ValidationError({"transactionHash": [NO_PAYMENT]})
        return attrs

    def validate_submissionText(self, value: str) -> str:
        try:
            return parse_coordinates(value).text
        except CoordinateError:
            raise serializers.ValidationError(COORDINATES_MESSAGE) from None

    def validate_transactionHash(self, value: str | None) -> str | None:
        if value is None:
            return None
        if not TX_HASH.match(value):
            raise serializers.ValidationError("The transaction hash must be 0x followed by 64 hexadecimal characters.")
        return value.lower()

    def validate_submitterAddress(self, value: str) -> str:
        if not ADDRESS.match(value):
            raise serializers.ValidationError("The wallet address must be 0x followed by 40 hexadecimal characters.")
        mixed_case = value[2:] != value[2:].lower() and value[2:] != value[2:].upper()
        if mixed_case and not is_checksum_address(value):
            raise serializers.ValidationError("The wallet address has an invalid checksum.")
        return to_checksum_address(value)

    def validate_submissionSalt(self, value: str) -> str:
        if not is_salt(value):
            raise serializers.ValidationError("The salt must be 64 lowercase hexadecimal characters.")
        return value


class AuthorizationSerializer(serializers.Serializer):
    """A claim's signed authorization as the API shows it (docs/protocol.md 3.3a): never the signature."""

    validBefore = serializers.IntegerField(source="valid_before", help_text="Unix seconds.")
    relayStatus = serializers.CharField(source="relay_status", help_text="queued, sent, refused, not_needed or failed.")
    relayReason = serializers.CharField(source="relay_reason", help_text="Why it was refused or failed; else empty.")
    relayCode = serializers.CharField(
        source="relay_code",
        help_text="Why, as a code: switched_off, address_limit, budget, funds, used, cancelled, expired, closed, "
        "balance, refused_by_token, reverted or lost; empty while queued or sent.",
    )
    relayTransactionHash = serializers.SerializerMethodField(help_text="The relayer's latest transaction, else null.")

    def get_relayTransactionHash(self, obj) -> str | None:
        return obj.relay_transaction_hash or None


class ResponseSerializer(serializers.ModelSerializer):
    """A claim as the public sees it. Coordinates are shown only once the challenge is resolved
    (or to the player who just posted them: see `reveal_text`)."""

    challengeId = serializers.IntegerField(source="challenge_id")
    submissionText = serializers.SerializerMethodField()
    submissionStake = serializers.DecimalField(source="submission_stake", max_digits=20, decimal_places=6)
    submissionTimestamp = serializers.SerializerMethodField()
    transactionHash = serializers.SerializerMethodField()
    submitterAddress = serializers.CharField(source="submitter_address")
    rejectionCode = serializers.CharField(source="rejection_code")
    rejectionReason = serializers.CharField(source="rejection_reason")
    paymentMethod = serializers.CharField(source="payment_method", help_text="transfer or authorization.")
    authorization = serializers.SerializerMethodField()

    class Meta:
        model = Response
        fields = [
            "id",
            "challengeId",
            "submissionText",
            "submissionStake",
            "submissionTimestamp",
            "transactionHash",
            "submitterAddress",
            "commitment",
            "status",
            "rejectionCode",
            "rejectionReason",
            "paymentMethod",
            "authorization",
        ]

    def get_transactionHash(self, obj: Response) -> str | None:
        """Null for a claim paid by authorization until a transaction that used it is known."""
        return obj.transaction_hash or None

    @extend_schema_field(AuthorizationSerializer(allow_null=True))
    def get_authorization(self, obj: Response) -> dict | None:
        if obj.payment_method != PaymentMethod.AUTHORIZATION:
            return None
        return AuthorizationSerializer(obj.authorization).data

    def get_submissionText(self, obj: Response) -> str | None:
        if self.context.get("reveal_text") or obj.challenge.is_resolved:
            return obj.submission_text
        return None

    def get_submissionTimestamp(self, obj: Response) -> int | None:
        return int(obj.submission_timestamp.timestamp()) if obj.submission_timestamp else None


class OutcomeSerializer(serializers.Serializer):
    """What a confirmed claim of a resolved challenge came to (docs/protocol.md section 6, "What the
    player sees"); built by responses/selectors.py, response_outcomes."""

    isCorrect = serializers.BooleanField()
    distanceMeters = serializers.FloatField(allow_null=True)
    prize = serializers.DecimalField(max_digits=20, decimal_places=6, help_text='"0.000000" when it won nothing.')
    payoutStatus = serializers.CharField(
        allow_null=True, help_text="due, verifying, paid, failed or kept; null when it won nothing."
    )
    payoutTransactionHash = serializers.CharField(allow_null=True, help_text="Once the chain has shown it paid.")


class ClaimSerializer(ResponseSerializer):
    """A claim as its payer follows it (the status look-up, the address list): with its `outcome`,
    null before resolution and for a claim that is not confirmed. The outcomes come in the context
    (`outcomes`, by id: responses/selectors.py, response_outcomes)."""

    outcome = serializers.SerializerMethodField()

    class Meta(ResponseSerializer.Meta):
        fields = [*ResponseSerializer.Meta.fields, "outcome"]

    @extend_schema_field(OutcomeSerializer(allow_null=True))
    def get_outcome(self, obj: Response) -> dict | None:
        return self.context.get("outcomes", {}).get(obj.pk)


# What re-checks a response once its challenge is resolved: its salt and its place in chain order.
RECHECK_FIELDS = ["submissionSalt", "blockNumber", "transactionIndex", "logIndex"]


class RecheckableResponseSerializer(ResponseSerializer):
    """A response with what anyone needs to re-check it from public data once its challenge is
    resolved (never before): the salt that opens the commitment its payment carried, and its place
    in chain order (block, transaction, log)."""

    submissionSalt = serializers.SerializerMethodField()
    blockNumber = serializers.SerializerMethodField()
    transactionIndex = serializers.SerializerMethodField()
    logIndex = serializers.SerializerMethodField()

    class Meta(ResponseSerializer.Meta):
        fields = [*ResponseSerializer.Meta.fields, *RECHECK_FIELDS]

    def _after_resolution(self, obj: Response, value):
        return value if obj.challenge.is_resolved else None

    def get_submissionSalt(self, obj: Response) -> str | None:
        """The salt of the guess commitment the payment carried; null until the challenge is resolved."""
        return self._after_resolution(obj, obj.submission_salt)

    def get_blockNumber(self, obj: Response) -> int | None:
        """The payment's block; null until the challenge is resolved."""
        return self._after_resolution(obj, obj.block_number)

    def get_transactionIndex(self, obj: Response) -> int | None:
        """The payment's index in its block; null until the challenge is resolved."""
        return self._after_resolution(obj, obj.transaction_index)

    def get_logIndex(self, obj: Response) -> int | None:
        """The index of the payment's USDC Transfer log in its block; null until the challenge is resolved."""
        return self._after_resolution(obj, obj.log_index)


class RejectedResponseSerializer(RecheckableResponseSerializer):
    """A rejected claim of a resolved challenge (never before): what a verifier needs to re-check
    its reason code (docs/protocol.md section 6, "Completeness"): its salt, and its payment's place
    in chain order where verification had recorded one (a claim confirmed once, then reorged)."""


class ScoredResponseSerializer(RecheckableResponseSerializer):
    """A response as an outcome: its score, and once the challenge is resolved (never before) what
    anyone needs to re-check it from public data (docs/protocol.md section 5): the salt that opens
    the commitment its payment carried, and its place in chain order (block, transaction, log).
    Reads the annotations of responses_with_scores (responses/selectors.py): the distance is not stored
    but computed when the page is read."""

    distanceMeters = serializers.FloatField(source="distance_meters", allow_null=True)
    isCorrect = serializers.BooleanField(source="correct", allow_null=True)

    class Meta(ResponseSerializer.Meta):
        fields = [
            *ResponseSerializer.Meta.fields,
            "distanceMeters",
            "isCorrect",
            *RECHECK_FIELDS,
        ]


class WinnerSerializer(ScoredResponseSerializer):
    prize = serializers.SerializerMethodField()
    payoutTransactionHash = serializers.SerializerMethodField()

    class Meta(ScoredResponseSerializer.Meta):
        fields = [*ScoredResponseSerializer.Meta.fields, "prize", "payoutTransactionHash"]

    def get_prize(self, obj) -> str:
        return str(self.context["prize"])

    def get_payoutTransactionHash(self, obj) -> str | None:
        return self.context.get("payout_transaction_hash")


class PayoutSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="earliest, highest or operations.")
    address = serializers.CharField()
    amount = serializers.DecimalField(max_digits=20, decimal_places=6)
    status = serializers.CharField(help_text="due, verifying, paid, failed or kept.")
    transactionHash = serializers.CharField(allow_null=True, help_text="Once the chain has shown it paid, else null.")


class ResolutionExceptionSerializer(serializers.Serializer):
    """A claim the chain changed after resolution started (docs/protocol.md section 4, "Close, grace
    period and resolution"): `after_resolution`, a payment that reached the site too late and is not
    in the pot; `reorged`, a counted payment whose block left the chain."""

    responseId = serializers.IntegerField(source="response_id")
    transactionHash = serializers.CharField(source="transaction_hash")
    submitterAddress = serializers.CharField(source="response.submitter_address")
    submissionStake = serializers.DecimalField(source="stake", max_digits=20, decimal_places=6)
    kind = serializers.CharField(help_text="after_resolution or reorged.")
    recordedAt = serializers.SerializerMethodField(help_text="Unix seconds.")

    def get_recordedAt(self, obj) -> int:
        return int(obj.created_at.timestamp())


class WinnersSerializer(serializers.Serializer):
    challengeId = serializers.IntegerField()
    proximityThreshold = serializers.IntegerField(allow_null=True)
    totalStaked = serializers.DecimalField(max_digits=20, decimal_places=6)
    responseCount = serializers.IntegerField()
    earliest = WinnerSerializer(allow_null=True)
    highest = WinnerSerializer(allow_null=True)
    operations = serializers.DecimalField(max_digits=20, decimal_places=6)
    unallocated = serializers.DecimalField(max_digits=20, decimal_places=6)
    payouts = PayoutSerializer(many=True)
    exceptions = ResolutionExceptionSerializer(many=True)
