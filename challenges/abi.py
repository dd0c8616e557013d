"""Solidity ABI words written by hand: what `abi.encode` makes of the static types the pot hashes
(contracts/GeopoemPot.sol), each value one 32-byte word. Only these few types are needed, and a
commitment is computed where no ABI library is loaded (the server's hot paths, and the standalone
verifier, which uses the standard library only), so the encoding is spelled out here.

Each function refuses a value its Solidity type cannot hold rather than wrapping it: a wrapped value
would hash to a commitment the contract can never reproduce."""

import re

WORD = 32
_ADDRESS = re.compile(r"^(?:0x)?[0-9a-fA-F]{40}$", re.ASCII)
_BYTES32 = re.compile(r"^(?:0x)?[0-9a-fA-F]{64}$", re.ASCII)


def uint_word(value: int, bits: int = 256) -> bytes:
    """uintN, big-endian, left-padded with zeros."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << bits:
        raise ValueError(f"not a uint{bits}: {value!r}")
    return value.to_bytes(WORD, "big")


def int_word(value: int, bits: int = 256) -> bytes:
    """intN in two's complement over the whole word (a negative value is padded with 0xff)."""
    if isinstance(value, bool) or not isinstance(value, int) or not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise ValueError(f"not an int{bits}: {value!r}")
    return value.to_bytes(WORD, "big", signed=True)


def address_word(address: str) -> bytes:
    """An address ("0x" and 40 hex digits, any case: the checksum is not checked, the bytes are what
    count), left-padded with zeros."""
    if not isinstance(address, str) or _ADDRESS.match(address) is None:
        raise ValueError(f"not an address: {address!r}")
    return bytes.fromhex(address.removeprefix("0x")).rjust(WORD, b"\0")


def bytes32_word(value: str) -> bytes:
    """A bytes32 given as 64 hex digits, with or without "0x"."""
    if not isinstance(value, str) or _BYTES32.match(value) is None:
        raise ValueError(f"not a bytes32: {value!r}")
    return bytes.fromhex(value.removeprefix("0x"))


def tag_word(tag: str) -> bytes:
    """A Solidity bytes32 string literal (`bytes32 X = "geopoem:guess:v2"`): the ASCII bytes
    left-aligned, zero-padded on the right."""
    raw = tag.encode("ascii")
    if len(raw) > WORD:
        raise ValueError(f"a bytes32 literal holds at most {WORD} bytes: {tag!r}")
    return raw.ljust(WORD, b"\0")
