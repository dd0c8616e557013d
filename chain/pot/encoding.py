"""The pot's keccak encodings (contracts/GeopoemPot.sol; docs/protocol.md section 1), pure: no node,
no Django. Each is keccak256 of `abi.encode` of static types, so each is a row of 32-byte words
(challenges/abi.py) hashed once; tests/vectors.json ("potEncodings") pins them to the contract's own
answers. Hashes are lowercase hex without "0x", as the commitments (challenges/commitments.py)."""

from dataclasses import dataclass

from eth_utils import keccak

from challenges.abi import address_word, bytes32_word, tag_word, uint_word

STAKE_TAG = "geopoem:stake:v1"


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


def terms_digest(challenge_id: int, terms: Terms) -> str:
    """keccak256(abi.encode(uint256 challengeId, Terms)): ten words. The stake nonce binds it, so a
    signature funds a stake only on the terms the player read, even if an `open` were replaced in a
    reorg."""
    return keccak(uint_word(challenge_id) + terms.words()).hex()


def stake_nonce(*, chain_id: int, pot: str, challenge_id: int, terms_digest: str, commitment: str, amount: int) -> str:
    """keccak256(abi.encode(bytes32 "geopoem:stake:v1", chainId, pot, challengeId, termsDigest,
    commitment, uint256 amount)): the `nonce` of the payer's EIP-3009 ReceiveWithAuthorization (to the
    pot, for `amount`), so nobody can aim the payment at another challenge, other terms or another
    guess."""
    words = (
        tag_word(STAKE_TAG),
        uint_word(chain_id),
        address_word(pot),
        uint_word(challenge_id),
        bytes32_word(terms_digest),
        bytes32_word(commitment),
        uint_word(amount),
    )
    return keccak(b"".join(words)).hex()


def stake_hash(*, payer: str, amount: int, commitment: str) -> str:
    """keccak256(abi.encode(address payer, uint256 amount, bytes32 commitment)): the one storage slot
    the pot keeps per stake, which a reveal, a prize or a refund must open."""
    return keccak(address_word(payer) + uint_word(amount) + bytes32_word(commitment)).hex()
