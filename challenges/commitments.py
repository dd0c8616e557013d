"""Salted SHA-256 commitments (docs/protocol.md section 1). The salt keeps a 6-decimal coordinate from
being brute-forced off a public chain; the bound chain, challenge and sender stop a commitment
from being replayed elsewhere. After resolution anyone can recompute both."""

import hashlib
import re
import secrets

SALT_PATTERN = re.compile(r"^[0-9a-f]{64}$", re.ASCII)


def new_salt() -> str:
    """32 bytes from the OS CSPRNG as 64 lowercase hex characters."""
    return secrets.token_hex(32)


def is_salt(value: object) -> bool:
    return isinstance(value, str) and SALT_PATTERN.match(value) is not None


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def guess_commitment(*, chain_id: int, challenge_id: int, submitter_address: str, text: str, salt: str) -> str:
    return _sha256_hex(f"geopoem:guess:v1|{chain_id}|{challenge_id}|{submitter_address.lower()}|{text}|{salt}")


def solution_commitment(*, challenge_id: int, text: str, salt: str) -> str:
    return _sha256_hex(f"geopoem:solution:v1|{challenge_id}|{text}|{salt}")


def terms_commitment(*, challenge_id: int, poem_title: str, poem_text: str, instructions_text: str) -> str:
    """The terms hash anchored on chain (docs/protocol.md section 6): each text exactly as the API
    serves it (sanitised HTML) hashed first, so the joined text is unambiguous whatever it holds."""
    parts = "|".join(_sha256_hex(text) for text in (poem_title, poem_text, instructions_text))
    return _sha256_hex(f"geopoem:terms:v1|{challenge_id}|{parts}")
