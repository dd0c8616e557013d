"""The terms a published challenge is opened on in the pot (docs/protocol.md section 2, "Terms, opened
once"), computed from what staff wrote, and the pot's own bounds on them checked before anything is
sent: a challenge the pot would refuse is refused at publish, by name."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from eth_utils import keccak

from .abi import bytes32_word, uint_word
from .commitments import terms_commitment
from .money import token_units

if TYPE_CHECKING:  # the rules stay importable without Django set up (tests/pot_vectors.py)
    from .models import Challenge

# The pot's constants (contracts/GeopoemPot.sol, contracts/GeoMath.sol).
MAX_OPEN_SECONDS = 90 * 86_400
MAX_SOLUTION_DELAY_SECONDS = 30 * 86_400
MIN_GUESS_WINDOW_SECONDS = 3_600
MAX_GUESS_WINDOW_SECONDS = 30 * 86_400
MIN_STAKE_FLOOR_UNITS = 1_000_000
HALF_CIRCUMFERENCE_M = 20_015_086


class TermsError(ValueError):
    """Terms the pot would refuse; the message says which and why."""


@dataclass(frozen=True)
class Terms:
    """GeopoemPot.Terms, field for field: what `open` fixes for good. Times are Unix seconds, amounts
    token units; the two hashes are 64 hex digits (with or without "0x")."""

    solution_commitment: str
    terms_hash: str
    threshold_m: int
    opens_at: int
    closes_at: int
    solution_deadline: int
    guess_window: int
    min_stake: int
    bond: int

    def words(self) -> bytes:
        """The struct as abi.encode writes a static tuple: its fields in order, one word each. A value
        its Solidity field cannot hold is refused (the contract could never have been opened with it)."""
        return b"".join(
            (
                bytes32_word(self.solution_commitment),
                bytes32_word(self.terms_hash),
                uint_word(self.threshold_m, 32),
                uint_word(self.opens_at, 32),
                uint_word(self.closes_at, 32),
                uint_word(self.solution_deadline, 32),
                uint_word(self.guess_window, 32),
                uint_word(self.min_stake, 64),
                uint_word(self.bond, 96),
            )
        )

    def as_json(self) -> dict:
        return asdict(self)


def terms_digest(challenge_id: int, terms: Terms) -> str:
    """keccak256(abi.encode(uint256 challengeId, Terms)): ten words. The stake nonce binds it, so a
    signature funds a stake only on the terms the player read, even if an `open` were replaced in a
    reorg."""
    return keccak(uint_word(challenge_id) + terms.words()).hex()


def _seconds(value: datetime | None, name: str) -> int:
    if value is None:
        raise TermsError(f"The challenge has no {name}.")
    return int(value.timestamp())


def challenge_terms(*, challenge: Challenge, now: datetime) -> Terms:
    """The terms of `challenge`, checked against the pot's bounds at `now`."""
    terms = Terms(
        solution_commitment=challenge.solution_sha256,
        terms_hash=terms_commitment(
            challenge_id=challenge.pk,
            poem_title=challenge.poem_title,
            poem_text=challenge.poem_text,
            instructions_text=challenge.instructions_text,
        ),
        threshold_m=challenge.proximity_threshold_m or 0,
        opens_at=_seconds(challenge.opens_at, "opening time"),
        closes_at=_seconds(challenge.closes_at, "close"),
        solution_deadline=_seconds(challenge.solution_deadline, "solution deadline"),
        guess_window=challenge.guess_window_seconds,
        min_stake=token_units(challenge.min_stake),
        bond=token_units(challenge.bond),
    )
    terms_check(terms, now=int(now.timestamp()))
    return terms


def terms_check(terms: Terms, *, now: int) -> None:
    """The pot's checks of `open`, in its order, with sentences for staff."""
    if terms.closes_at <= terms.opens_at:
        raise TermsError("The close must come after the opening.")
    if terms.closes_at <= now:
        raise TermsError("The close must be in the future.")
    if terms.closes_at - terms.opens_at > MAX_OPEN_SECONDS:
        raise TermsError("A challenge can be open for at most 90 days.")
    if not 0 < terms.solution_deadline - terms.closes_at <= MAX_SOLUTION_DELAY_SECONDS:
        raise TermsError("The solution deadline must come after the close, and at most 30 days after it.")
    if not MIN_GUESS_WINDOW_SECONDS <= terms.guess_window <= MAX_GUESS_WINDOW_SECONDS:
        raise TermsError("The guess window must be from 1 hour to 30 days.")
    if terms.min_stake < MIN_STAKE_FLOOR_UNITS:
        raise TermsError("The minimum stake must be at least 1 USDC.")
    if terms.threshold_m >= HALF_CIRCUMFERENCE_M:
        raise TermsError(f"The threshold must be below half the earth's circumference ({HALF_CIRCUMFERENCE_M:,} m).")
