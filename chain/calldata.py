"""The stake transfer's calldata (docs/protocol.md section 2):

    0xa9059cbb ‖ pad32(treasury) ‖ uint256(amountUnits)
               ‖ bytes32(commitment) ‖ uint256(challengeId) ‖ uint256(unixSeconds)

164 bytes. An ERC-20 `transfer` reads the first two words and ignores the rest; the server reads
the trailing three back from the transaction input. Pure functions, no web3 needed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from eth_utils import to_checksum_address

TRANSFER_SELECTOR = bytes.fromhex("a9059cbb")
WORD = 32
PLAIN_TRANSFER_LENGTH = 4 + 2 * WORD  # 68: a standard ERC-20 transfer
STAKE_TRANSFER_LENGTH = 4 + 5 * WORD  # 164: the extended Geopoem transfer
UINT256_MAX = 2**256 - 1
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class CalldataError(ValueError):
    """The bytes are not a transfer call this codec understands."""


@dataclass(frozen=True)
class DecodedTransfer:
    """A `transfer` call read leniently: the trailing Geopoem words are None when absent."""

    to: str
    amount_units: int
    commitment: str | None
    challenge_id: int | None
    timestamp: int | None

    @property
    def is_stake_transfer(self) -> bool:
        return self.commitment is not None


def _to_bytes(data: bytes | str) -> bytes:
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    text = data[2:] if data[:2] in ("0x", "0X") else data
    try:
        return bytes.fromhex(text)
    except ValueError as exc:
        raise CalldataError("calldata is not hex") from exc


def _uint(value: int, what: str) -> bytes:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= UINT256_MAX:
        raise CalldataError(f"{what} must be an integer in uint256 range")
    return value.to_bytes(WORD, "big")


def encode_stake_transfer(
    *, treasury: str, amount_units: int, commitment: str, challenge_id: int, timestamp: int
) -> str:
    """The 164-byte calldata as 0x-prefixed lowercase hex."""
    address = _to_bytes(treasury)
    if len(address) != 20:
        raise CalldataError("treasury must be a 20-byte address")
    commitment_hex = commitment.lower().removeprefix("0x")
    if not _HEX64.match(commitment_hex):
        raise CalldataError("commitment must be 32 bytes of hex")
    data = (
        TRANSFER_SELECTOR
        + address.rjust(WORD, b"\x00")
        + _uint(amount_units, "amount")
        + bytes.fromhex(commitment_hex)
        + _uint(challenge_id, "challenge id")
        + _uint(timestamp, "timestamp")
    )
    return "0x" + data.hex()


def decode_transfer(data: bytes | str) -> DecodedTransfer:
    """Read a `transfer(address,uint256)` call, with or without the Geopoem words.

    Raises CalldataError for another function, a malformed address word or a length that is
    neither the plain 68 bytes nor the extended 164 bytes."""
    raw = _to_bytes(data)
    if raw[:4] != TRANSFER_SELECTOR:
        raise CalldataError("not an ERC-20 transfer call")
    if len(raw) not in (PLAIN_TRANSFER_LENGTH, STAKE_TRANSFER_LENGTH):
        raise CalldataError(f"transfer calldata of {len(raw)} bytes")
    words = [raw[4 + i * WORD : 4 + (i + 1) * WORD] for i in range((len(raw) - 4) // WORD)]
    if any(words[0][:12]):
        raise CalldataError("recipient word is not a padded address")
    to = to_checksum_address(words[0][12:])
    amount = int.from_bytes(words[1], "big")
    if len(words) == 2:
        return DecodedTransfer(to=to, amount_units=amount, commitment=None, challenge_id=None, timestamp=None)
    return DecodedTransfer(
        to=to,
        amount_units=amount,
        commitment=words[2].hex(),
        challenge_id=int.from_bytes(words[3], "big"),
        timestamp=int.from_bytes(words[4], "big"),
    )
