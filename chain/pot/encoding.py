"""The pot's keccak encodings (contracts/GeopoemPot.sol; docs/protocol.md section 1), pure: no node,
no Django. Each is keccak256 of `abi.encode` of static types, so each is a row of 32-byte words
(challenges/abi.py) hashed once; tests/vectors.json ("potEncodings") pins them to the contract's own
answers. Hashes are lowercase hex without "0x", as the commitments (challenges/commitments.py)."""

from eth_utils import keccak

from challenges.abi import address_word, bytes32_word, tag_word, uint_word
from challenges.terms import Terms, terms_digest

__all__ = ["STAKE_TAG", "Terms", "stake_hash", "stake_nonce", "terms_digest"]

STAKE_TAG = "geopoem:stake:v1"


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
