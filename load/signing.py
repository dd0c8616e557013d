"""The stakes the load run's players sign (load/locustfile.py, and load/harness.py's warm-up, which must
not import locust: it patches the process it is imported in with gevent).

Environment: LOAD_CHALLENGE_ID, and what a stake is signed for: LOAD_CHAIN_ID, LOAD_POT, LOAD_USDC,
LOAD_TERMS_DIGEST."""

import os
import secrets
import time
from decimal import Decimal

from eth_account import Account
from eth_utils import keccak

from chain.token.authorization import ReceiveAuthorization, TokenDomain
from challenges.abi import address_word, bytes32_word, tag_word, uint_word

CHALLENGE_ID = int(os.environ.get("LOAD_CHALLENGE_ID", "1"))


def signed_stake(key: bytes, stake: str) -> dict:
    """A stake as the page signs it: a commitment (random here: the site never sees the guess), the
    stake nonce over the challenge's terms digest (chain/pot/encoding.py, written out: this process
    has no Django), the payer's ReceiveWithAuthorization to the pot."""
    challenge_id = int(os.environ["LOAD_CHALLENGE_ID"])
    chain_id = int(os.environ["LOAD_CHAIN_ID"])
    pot = os.environ["LOAD_POT"]
    domain = TokenDomain("Test USD Coin", "2", chain_id, os.environ["LOAD_USDC"])
    payer = Account.from_key(key).address
    commitment = secrets.token_hex(32)
    amount = int(Decimal(stake).scaleb(6))
    nonce = keccak(
        tag_word("geopoem:stake:v1") + uint_word(chain_id) + address_word(pot) + uint_word(challenge_id)
        + bytes32_word(os.environ["LOAD_TERMS_DIGEST"]) + bytes32_word(commitment) + uint_word(amount)
    ).hex()  # fmt: skip
    valid_before = int(time.time()) + 1800
    digest = ReceiveAuthorization(payer, pot, amount, 0, valid_before, nonce).digest(domain)
    signed = Account.unsafe_sign_hash(digest, key)
    signature = "0x" + signed.r.to_bytes(32, "big").hex() + signed.s.to_bytes(32, "big").hex() + f"{signed.v:02x}"
    return {
        "challengeId": challenge_id,
        "submitterAddress": payer,
        "submissionStake": stake,
        "commitment": commitment,
        "authorization": {"validAfter": 0, "validBefore": valid_before, "signature": signature},
    }
