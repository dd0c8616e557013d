"""Salted SHA-256 commitments (docs/protocol.md section 1). The salt keeps a 6-decimal coordinate from
being brute-forced off a public chain; the bound chain, pot, challenge and payer stop a commitment
from being replayed elsewhere or by someone else. After the reveal anyone can recompute both.

They are what the pot recomputes from a reveal (contracts/GeopoemPot.sol, guessCommitment and
solutionCommitment): sha256 of ABI-encoded integers, not of the decimal text, because the contract
cannot parse text cheaply but can encode integers. The terms hash is over text: the pot only keeps
it, and the page recomputes it from what the API serves."""

import hashlib
import re
import secrets

from .abi import address_word, bytes32_word, int_word, tag_word, uint_word

SALT_PATTERN = re.compile(r"^[0-9a-f]{64}$", re.ASCII)


def new_salt() -> str:
    """32 bytes from the OS CSPRNG as 64 lowercase hex characters."""
    return secrets.token_hex(32)


def is_salt(value: object) -> bool:
    return isinstance(value, str) and SALT_PATTERN.match(value) is not None


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


GUESS_TAG = "geopoem:guess:v2"
SOLUTION_TAG = "geopoem:solution:v2"


def _salt_word(salt: str) -> bytes:
    if not is_salt(salt):
        raise ValueError(f"a salt is 64 lowercase hex characters, not {salt!r}")
    return bytes32_word(salt)


def guess_commitment(
    *, chain_id: int, pot: str, challenge_id: int, payer: str, lat_e6: int, lon_e6: int, salt: str
) -> str:
    """sha256(abi.encode(bytes32 "geopoem:guess:v2", chainId, pot, challengeId, payer, int256 latE6,
    int256 lonE6, bytes32 salt)): eight words. The payer is in it so that a commitment copied from the
    chain and staked by someone else can never be opened with the first player's reveal; the pot and
    the chain so that it cannot be replayed on another pot."""
    words = (
        tag_word(GUESS_TAG),
        uint_word(chain_id),
        address_word(pot),
        uint_word(challenge_id),
        address_word(payer),
        int_word(lat_e6),
        int_word(lon_e6),
        _salt_word(salt),
    )
    return hashlib.sha256(b"".join(words)).hexdigest()


def solution_commitment(*, chain_id: int, pot: str, challenge_id: int, lat_e6: int, lon_e6: int, salt: str) -> str:
    """sha256(abi.encode(bytes32 "geopoem:solution:v2", chainId, pot, challengeId, int256 latE6,
    int256 lonE6, bytes32 salt)): seven words."""
    words = (
        tag_word(SOLUTION_TAG),
        uint_word(chain_id),
        address_word(pot),
        uint_word(challenge_id),
        int_word(lat_e6),
        int_word(lon_e6),
        _salt_word(salt),
    )
    return hashlib.sha256(b"".join(words)).hexdigest()


def terms_commitment(*, challenge_id: int, poem_title: str, poem_text: str, instructions_text: str) -> str:
    """The terms hash the pot's terms hold (docs/protocol.md section 1): each text exactly as the API
    serves it (sanitised HTML) hashed first, so the joined text is unambiguous whatever it holds."""
    parts = "|".join(_sha256_hex(text) for text in (poem_title, poem_text, instructions_text))
    return _sha256_hex(f"geopoem:terms:v1|{challenge_id}|{parts}")
