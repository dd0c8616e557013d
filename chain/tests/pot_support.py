"""Playing the game on anvil the way the site and its players do: a player's page signs a stake (the
EIP-712 ReceiveWithAuthorization to the pot, docs/protocol.md section 2) and posts it, the relayer
sends it, the follower reads the pot and queues the next steps, and the chain's clock is moved past a
close or a deadline. Each helper runs the site's own code (the worker's tasks are called in the test's
process); only the player's wallet is played by eth_account with the player's key."""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from eth_account import Account
from eth_account.messages import encode_typed_data

from chain.pot.encoding import stake_nonce
from chain.pot.follow import pot_follow
from chain.pot.opening import OpeningPending, opening_advance
from chain.pot.steps import pot_steps
from chain.relayer.sender import relay_send
from chain.relayer.watch import relay_watch
from challenges.commitments import guess_commitment, new_salt
from challenges.coordinates import micro_degrees
from challenges.models import OpeningStatus, PotOpening, PotState

from .conftest import Chain


def follow() -> None:
    """One round of the follower, then the game's next steps queued (what the beat's task does)."""
    pot_follow()
    pot_steps()


def relay() -> None:
    """The relayer sends what is queued (anvil mines each transaction at once), then its watcher reads
    the receipts."""
    relay_send()
    relay_watch()


def settle(chain: Chain, *, rounds: int = 8) -> None:
    """Follow, relay and mine until nothing more is queued: the worker's loop, run to a standstill."""
    for _ in range(rounds):
        follow()
        relay()
        chain.mine(2)
    follow()


def open_for_real(chain: Chain, challenge) -> None:
    try:
        opening_advance(challenge_id=challenge.pk)
    except OpeningPending:
        pass
    for _ in range(5):
        chain.mine(2)
        follow()
        if PotOpening.objects.get(challenge=challenge).status == OpeningStatus.CONFIRMED:
            return
    opening = PotOpening.objects.get(challenge=challenge)
    raise AssertionError(f"the opening of {challenge} was not confirmed: {opening.status} {opening.last_error}")


@dataclass
class SignedStake:
    """What a player's page keeps (the guess and its salt) and what it posts (the rest)."""

    payer: str
    key: str
    text: str
    salt: str
    lat_e6: int
    lon_e6: int
    commitment: str
    amount: int
    valid_after: int
    valid_before: int
    signature: str

    def body(self, challenge_id: int) -> dict:
        """POST /api/responses (docs/protocol.md 3.1)."""
        return {
            "challengeId": challenge_id,
            "submitterAddress": self.payer,
            "submissionStake": f"{Decimal(self.amount).scaleb(-6):.2f}",
            "commitment": self.commitment,
            "authorization": {
                "validAfter": self.valid_after,
                "validBefore": self.valid_before,
                "signature": self.signature,
            },
        }

    def guess_body(self, challenge_id: int) -> dict:
        """POST /api/responses/guess (docs/protocol.md 3.2)."""
        return {
            "challengeId": challenge_id,
            "submitterAddress": self.payer,
            "commitment": self.commitment,
            "submissionText": self.text,
            "submissionSalt": self.salt,
        }


def token_domain(chain: Chain) -> dict:
    token = chain.token()
    return {
        "name": token.functions.name().call(),
        "version": token.functions.version().call(),
        "chainId": settings.CHAIN_ID,
        "verifyingContract": chain.usdc,
    }


def sign_receive(chain: Chain, *, key: str, amount: int, nonce: str, valid_after: int, valid_before: int) -> str:
    """A wallet's eth_signTypedData_v4 of ReceiveWithAuthorization to the pot."""
    payer = Account.from_key(key).address
    typed = {
        "types": {
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
        },
        "primaryType": "ReceiveWithAuthorization",
        "domain": token_domain(chain),
        "message": {
            "from": payer,
            "to": chain.pot,
            "value": amount,
            "validAfter": valid_after,
            "validBefore": valid_before,
            "nonce": "0x" + nonce.removeprefix("0x"),
        },
    }
    signed = Account.sign_message(encode_typed_data(full_message=typed), key)
    return "0x" + signed.signature.hex().removeprefix("0x")


def sign_stake(
    chain: Chain,
    challenge,
    *,
    player: int = 0,
    text: str = "29.979175, 31.134258",
    stake: str = "5",
    valid_before: int | None = None,
    digest: str | None = None,
) -> SignedStake:
    """A player's stake as the page makes it: a fresh salt, the v2 commitment with the payer bound in,
    the stake nonce over the challenge's terms digest (the pot's, as the page reads it), signed."""
    payer, key = chain.players[player]
    salt = new_salt()
    lat, lon = micro_degrees(text)
    commitment = guess_commitment(
        chain_id=settings.CHAIN_ID,
        pot=chain.pot,
        challenge_id=challenge.pk,
        payer=payer,
        lat_e6=lat,
        lon_e6=lon,
        salt=salt,
    )
    amount = int(Decimal(stake) * 10**6)
    digest = digest or PotState.objects.get(challenge=challenge).terms_digest
    nonce = stake_nonce(
        chain_id=settings.CHAIN_ID,
        pot=chain.pot,
        challenge_id=challenge.pk,
        terms_digest=digest,
        commitment=commitment,
        amount=amount,
    )
    valid_before = valid_before or int(time.time()) + 1800
    signature = sign_receive(chain, key=key, amount=amount, nonce=nonce, valid_after=0, valid_before=valid_before)
    return SignedStake(
        payer=payer.lower(),
        key=key,
        text=text,
        salt=salt,
        lat_e6=lat,
        lon_e6=lon,
        commitment=commitment,
        amount=amount,
        valid_after=0,
        valid_before=valid_before,
        signature=signature,
    )
