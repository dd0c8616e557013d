"""The API's shapes of a stake (docs/protocol.md 3.4), a signed stake and a guess posted by the page
(3.1, 3.2), and the winners (3.5)."""

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from eth_utils import is_checksum_address
from rest_framework import serializers

from challenges.commitments import is_salt
from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, parse_coordinates

from .stakes import StakeError, parse_stake, stake_step_error

ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$", re.ASCII)
COMMITMENT = re.compile(r"^[0-9a-f]{64}$", re.ASCII)
SIGNATURE = re.compile(r"^0x[0-9a-fA-F]{130}$", re.ASCII)
UINT256_MAX = 2**256 - 1
NO_GUESS_HERE = (
    "A stake is relayed without its guess: send the coordinates and the salt once the stake is in the pot "
    "(POST /api/responses/guess)."
)


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


def address_value(value: str) -> str:
    """A payer's address, checked (a mixed-case one must carry a valid checksum), as lowercase."""
    if not ADDRESS.match(value):
        raise serializers.ValidationError("The wallet address must be 0x followed by 40 hexadecimal characters.")
    mixed_case = value[2:] != value[2:].lower() and value[2:] != value[2:].upper()
    if mixed_case and not is_checksum_address(value):
        raise serializers.ValidationError("The wallet address has an invalid checksum.")
    return value.lower()


def commitment_value(value: str) -> str:
    if not COMMITMENT.match(value):
        raise serializers.ValidationError("The commitment must be 64 lowercase hexadecimal characters.")
    return value


class AuthorizationInputSerializer(serializers.Serializer):
    validAfter = UnixSecondsField(help_text="Unix seconds; the page sends 0.")
    validBefore = UnixSecondsField(help_text="Unix seconds, when the authorization expires.")
    signature = serializers.CharField(max_length=132, help_text="0x + 130 hex characters: r, s, v.")

    def validate_signature(self, value: str) -> str:
        if not SIGNATURE.match(value):
            raise serializers.ValidationError("The signature must be 0x followed by 130 hexadecimal characters.")
        return value.lower()


class SignedStakeInputSerializer(serializers.Serializer):
    """A stake the player signed, for the relayer (docs/protocol.md 3.1). Never the guess."""

    challengeId = serializers.IntegerField(min_value=1)
    submitterAddress = serializers.CharField(max_length=42)
    submissionStake = StakeField(help_text='USDC as a decimal string, e.g. "12.50".')
    commitment = serializers.CharField(max_length=64, help_text="The guess commitment, 64 lowercase hex characters.")
    authorization = AuthorizationInputSerializer()

    def to_internal_value(self, data):
        if isinstance(data, dict):
            present = [name for name in ("submissionText", "submissionSalt") if name in data]
            if present:
                raise serializers.ValidationError({name: [NO_GUESS_HERE] for name in present})
        return super().to_internal_value(data)

    def validate_submitterAddress(self, value: str) -> str:
        return address_value(value)

    def validate_commitment(self, value: str) -> str:
        return commitment_value(value)


class GuessInputSerializer(serializers.Serializer):
    """The guess of a stake in the pot (docs/protocol.md 3.2)."""

    challengeId = serializers.IntegerField(min_value=1)
    submitterAddress = serializers.CharField(max_length=42)
    commitment = serializers.CharField(max_length=64)
    submissionText = serializers.CharField(max_length=100, trim_whitespace=False, help_text='"lat, lon"')
    submissionSalt = serializers.CharField(max_length=64, help_text="64 lowercase hex characters.")

    def validate_submitterAddress(self, value: str) -> str:
        return address_value(value)

    def validate_commitment(self, value: str) -> str:
        return commitment_value(value)

    def validate_submissionText(self, value: str) -> str:
        try:
            return parse_coordinates(value).text
        except CoordinateError:
            raise serializers.ValidationError(COORDINATES_MESSAGE) from None

    def validate_submissionSalt(self, value: str) -> str:
        if not is_salt(value):
            raise serializers.ValidationError("The salt must be 64 lowercase hexadecimal characters.")
        return value


class AuthorizationSerializer(serializers.Serializer):
    """A signed stake's relay as the API shows it: never the signature."""

    validBefore = serializers.IntegerField(help_text="Unix seconds.")
    relayStatus = serializers.CharField(help_text="queued, sent, refused, not_needed or failed.")
    relayCode = serializers.CharField(help_text="Why, as a code; empty while queued or sent.")
    relayReason = serializers.CharField(help_text="Why it was refused or failed, the player's sentence; else empty.")
    relayTransactionHash = serializers.CharField(allow_null=True, help_text="The relayer's latest transaction.")


class OutcomeSerializer(serializers.Serializer):
    prize = serializers.CharField(help_text="USDC, 6 decimals: the prizes this stake won, 0 when none.")
    prizes = serializers.ListField(child=serializers.CharField(), help_text="earliest, highest: which it won.")
    paid = serializers.BooleanField(help_text="Every prize it won is paid (true when it won none).")
    refund = serializers.CharField(allow_null=True, help_text="USDC refunded to its payer (stake and bond share).")


class StakeSerializer(serializers.Serializer):
    """A stake as the API shows it (docs/protocol.md 3.4); built by responses/selectors.py."""

    id = serializers.IntegerField(allow_null=True, help_text="The pot's sequence number; null until on chain.")
    challengeId = serializers.IntegerField()
    submitterAddress = serializers.CharField()
    submissionStake = serializers.CharField(help_text="USDC, 6 decimals.")
    commitment = serializers.CharField()
    status = serializers.CharField(help_text="relaying, refused, failed, pending or confirmed.")
    transactionHash = serializers.CharField(allow_null=True)
    blockNumber = serializers.IntegerField(allow_null=True)
    logIndex = serializers.IntegerField(allow_null=True)
    submissionTimestamp = serializers.IntegerField(allow_null=True, help_text="The block's time, Unix seconds.")
    paymentMethod = serializers.CharField(help_text="authorization or approval.")
    authorization = AuthorizationSerializer(allow_null=True)
    guessReceived = serializers.BooleanField()
    submissionText = serializers.CharField(
        allow_null=True, help_text='"lat, lon"; null until the solution is revealed.'
    )
    submissionSalt = serializers.CharField(allow_null=True, help_text="Null until the solution is revealed.")
    revealed = serializers.BooleanField(help_text="Its guess was revealed on chain.")
    isCorrect = serializers.BooleanField(allow_null=True)
    distanceMeters = serializers.CharField(allow_null=True, help_text="Haversine, metres, 2 decimals.")
    outcome = OutcomeSerializer(allow_null=True)


class PaymentSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="earliest, highest, share or refund.")
    seq = serializers.IntegerField(allow_null=True)
    to = serializers.CharField()
    amount = serializers.CharField(help_text="USDC, 6 decimals (a refund: the stake and its bond share).")
    transactionHash = serializers.CharField()


class WinnersSerializer(serializers.Serializer):
    challengeId = serializers.IntegerField()
    phase = serializers.CharField()
    final = serializers.BooleanField(help_text="The guess window is over: the winners cannot change.")
    guessDeadline = serializers.IntegerField(allow_null=True)
    earliest = StakeSerializer(allow_null=True)
    highest = StakeSerializer(allow_null=True)
    prizes = serializers.DictField(child=serializers.CharField(), help_text="earliest, highest, share: USDC.")
    payments = PaymentSerializer(many=True)
