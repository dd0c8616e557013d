"""EIP-3009 receive authorizations, as Geopoem's pot takes them (docs/protocol.md section 2,
"Stakes"): the EIP-712 digest a player signs and the recovery of its signer. Pure functions: the
token's domain comes from the chain (chain/token/domain.py), the rest from the signed stake. Written
out with keccak rather than through a generic typed-data encoder, so the POST's check costs a few
hashes and one recovery, and every byte is visible here.

The token (Circle's FiatToken v2, and contracts/TestUSDC.sol) recovers the signer with ECRecover,
which refuses a `v` other than 27 or 28 and an `s` in the upper half of the curve order (the
malleable twin of a signature). The server refuses the same signatures, so that a signed stake it
accepts is one the token would accept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eth_keys import KeyAPI
from eth_keys.exceptions import BadSignature
from eth_utils import keccak, to_checksum_address

EIP712_DOMAIN_TYPE = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
RECEIVE_WITH_AUTHORIZATION_TYPE = (
    "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,"
    "bytes32 nonce)"
)
# The same two types as JSON, as a wallet's eth_signTypedData_v4 takes them.
TYPED_DATA_TYPES = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "ReceiveWithAuthorization": [
        {"name": "from", "type": "address"},
        {"name": "to", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "validAfter", "type": "uint256"},
        {"name": "validBefore", "type": "uint256"},
        {"name": "nonce", "type": "bytes32"},
    ],
}
EIP712_DOMAIN_TYPEHASH = keccak(text=EIP712_DOMAIN_TYPE)
RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak(text=RECEIVE_WITH_AUTHORIZATION_TYPE)
UINT256_MAX = 2**256 - 1
# secp256k1's order; a signature with s above half of it is the malleable twin of another.
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_SIGNATURE = re.compile(r"^0x[0-9a-fA-F]{130}$", re.ASCII)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class AuthorizationError(ValueError):
    """The bytes are not a signature this module understands."""


@dataclass(frozen=True)
class TokenDomain:
    """The token's EIP-712 domain, as read from the chain (never written in the code)."""

    name: str
    version: str
    chain_id: int
    verifying_contract: str

    def separator(self) -> bytes:
        return keccak(
            EIP712_DOMAIN_TYPEHASH
            + keccak(text=self.name)
            + keccak(text=self.version)
            + _uint(self.chain_id)
            + _address_word(self.verifying_contract)
        )

    def as_json(self) -> dict[str, str | int]:
        """The domain as the page passes it to eth_signTypedData_v4."""
        return {
            "name": self.name,
            "version": self.version,
            "chainId": self.chain_id,
            "verifyingContract": to_checksum_address(self.verifying_contract),
        }


@dataclass(frozen=True)
class ReceiveAuthorization:
    """What the payer signs: `value` units from `from_address` to `to_address` (the pot, which alone
    may submit it), valid strictly between `valid_after` and `valid_before` (Unix seconds), once for
    `nonce`, the stake nonce of docs/protocol.md section 2 (64 lowercase hex characters, no 0x)."""

    from_address: str
    to_address: str
    value: int
    valid_after: int
    valid_before: int
    nonce: str

    def struct_hash(self) -> bytes:
        return keccak(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH
            + _address_word(self.from_address)
            + _address_word(self.to_address)
            + _uint(self.value)
            + _uint(self.valid_after)
            + _uint(self.valid_before)
            + _nonce_bytes(self.nonce)
        )

    def digest(self, domain: TokenDomain) -> bytes:
        """The EIP-712 hash the wallet signs: keccak(0x1901 ‖ domainSeparator ‖ structHash)."""
        return keccak(b"\x19\x01" + domain.separator() + self.struct_hash())


@dataclass(frozen=True)
class Signature:
    v: int
    r: int
    s: int

    @classmethod
    def parse(cls, text: str) -> Signature:
        """`0x` + r ‖ s ‖ v (65 bytes), as eth_signTypedData_v4 returns it. Raises
        AuthorizationError for anything the token's ECRecover would refuse: a length other than
        65 bytes, a `v` other than 27 or 28 (0 and 1 are read as 27 and 28, as wallets may send),
        an `s` in the upper half of the order, or a zero `r` or `s`."""
        if not isinstance(text, str) or not _SIGNATURE.match(text):
            raise AuthorizationError("a signature is 0x and 130 hexadecimal characters")
        raw = bytes.fromhex(text[2:])
        r, s, v = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:64], "big"), raw[64]
        if v in (0, 1):
            v += 27
        if v not in (27, 28):
            raise AuthorizationError("the signature's v is not 27 or 28")
        if not 0 < r < SECP256K1_N or not 0 < s <= SECP256K1_N // 2:
            raise AuthorizationError("the signature's r or s is out of range (a malleable signature)")
        return cls(v=v, r=r, s=s)

    def hex(self) -> str:
        return "0x" + self.r.to_bytes(32, "big").hex() + self.s.to_bytes(32, "big").hex() + f"{self.v:02x}"


def typed_data(authorization: ReceiveAuthorization, domain: TokenDomain) -> dict:
    """The EIP-712 document a wallet signs for `authorization` under `domain` (eth_signTypedData_v4's
    argument, as the page builds it: frontend/src/lib/authorization.ts). Its digest is
    `authorization.digest(domain)`."""
    return {
        "types": TYPED_DATA_TYPES,
        "primaryType": "ReceiveWithAuthorization",
        "domain": domain.as_json(),
        "message": {
            "from": authorization.from_address,
            "to": authorization.to_address,
            "value": authorization.value,
            "validAfter": authorization.valid_after,
            "validBefore": authorization.valid_before,
            "nonce": "0x" + authorization.nonce,
        },
    }


def recover_signer(authorization: ReceiveAuthorization, domain: TokenDomain, signature: Signature) -> str | None:
    """The checksummed address that signed `authorization` under `domain`, or None when the
    signature recovers no key."""
    try:
        key = KeyAPI.Signature(vrs=(signature.v - 27, signature.r, signature.s)).recover_public_key_from_msg_hash(
            authorization.digest(domain)
        )
    except (BadSignature, ValueError):
        return None
    return key.to_checksum_address()


def signed_by(authorization: ReceiveAuthorization, domain: TokenDomain, signature_text: str) -> bool:
    """Whether `signature_text` is `authorization.from_address`'s signature of it, and one the
    token would accept (Signature.parse)."""
    try:
        signature = Signature.parse(signature_text)
    except AuthorizationError:
        return False
    signer = recover_signer(authorization, domain, signature)
    return signer is not None and signer.lower() == authorization.from_address.lower()


def _uint(value: int) -> bytes:
    if not 0 <= value <= UINT256_MAX:
        raise AuthorizationError("a uint256 is out of range")
    return value.to_bytes(32, "big")


def _address_word(address: str) -> bytes:
    raw = bytes.fromhex(address.lower().removeprefix("0x"))
    if len(raw) != 20:
        raise AuthorizationError("an address is 20 bytes")
    return raw.rjust(32, b"\0")


def _nonce_bytes(nonce: str) -> bytes:
    text = nonce.lower().removeprefix("0x")
    if not _HEX64.match(text):
        raise AuthorizationError("a nonce is 32 bytes of hex")
    return bytes.fromhex(text)
