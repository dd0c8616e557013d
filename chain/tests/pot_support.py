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
from chain.token.authorization import ReceiveAuthorization, TokenDomain, typed_data
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


def sign_receive(
    chain: Chain,
    *,
    key: str,
    amount: int,
    nonce: str,
    valid_after: int,
    valid_before: int,
    to: str | None = None,
) -> str:
    """A wallet's eth_signTypedData_v4 of ReceiveWithAuthorization to the pot (or to `to`), under the
    token's domain read from the chain."""
    token = chain.token()
    domain = TokenDomain(token.functions.name().call(), token.functions.version().call(), settings.CHAIN_ID, chain.usdc)
    payer = Account.from_key(key).address
    authorization = ReceiveAuthorization(
        payer, to or chain.pot, amount, valid_after, valid_before, nonce.removeprefix("0x")
    )
    signed = Account.sign_message(encode_typed_data(full_message=typed_data(authorization, domain)), key)
    return "0x" + signed.signature.hex().removeprefix("0x")


def sign_stake(
    chain: Chain,
    challenge,
    *,
    player: int = 0,
    key: str | None = None,
    text: str = "29.979175, 31.134258",
    stake: str = "5",
    valid_after: int = 0,
    valid_before: int | None = None,
    digest: str | None = None,
) -> SignedStake:
    """A player's stake as the page makes it: a fresh salt, the v2 commitment with the payer bound in,
    the stake nonce over the challenge's terms digest (the pot's, as the page reads it), signed.
    `key`: a wallet outside chain.players."""
    key = key or chain.players[player][1]
    payer = Account.from_key(key).address
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
    signature = sign_receive(
        chain, key=key, amount=amount, nonce=nonce, valid_after=valid_after, valid_before=valid_before
    )
    return SignedStake(
        payer=payer.lower(),
        key=key,
        text=text,
        salt=salt,
        lat_e6=lat,
        lon_e6=lon,
        commitment=commitment,
        amount=amount,
        valid_after=valid_after,
        valid_before=valid_before,
        signature=signature,
    )


def signature_over(
    chain: Chain,
    challenge,
    signed: SignedStake,
    *,
    key: str | None = None,
    to: str | None = None,
    amount: int | None = None,
    challenge_id: int | None = None,
    terms_digest: str | None = None,
    commitment: str | None = None,
) -> str:
    """A signature of `signed`'s stake with one thing changed from what the site computes for it:
    another signer, recipient or amount, or a nonce over another challenge, terms digest, commitment or
    amount."""
    nonce = stake_nonce(
        chain_id=settings.CHAIN_ID,
        pot=chain.pot,
        challenge_id=challenge_id if challenge_id is not None else challenge.pk,
        terms_digest=terms_digest or PotState.objects.get(challenge=challenge).terms_digest,
        commitment=commitment or signed.commitment,
        amount=amount if amount is not None else signed.amount,
    )
    return sign_receive(
        chain,
        key=key or signed.key,
        amount=amount if amount is not None else signed.amount,
        nonce=nonce,
        valid_after=signed.valid_after,
        valid_before=signed.valid_before,
        to=to,
    )


def send_as(chain: Chain, key: str, *, to: str, data: str, gas: int = 400_000) -> dict:
    """A transaction from a key's own wallet (a player sending "it yourself", a stranger, the
    operator), signed locally, mined by anvil at once; its receipt (status 0: reverted)."""
    from eth_utils import to_checksum_address

    account = Account.from_key(key)
    block = chain.w3.eth.get_block("latest")
    tip = 10**9
    tx = {
        "type": 2,
        "chainId": settings.CHAIN_ID,
        "nonce": chain.w3.eth.get_transaction_count(account.address, "pending"),
        "to": to_checksum_address(to),
        "value": 0,
        "data": data,
        "gas": gas,
        "maxFeePerGas": 2 * block["baseFeePerGas"] + tip,
        "maxPriorityFeePerGas": tip,
    }
    raw = account.sign_transaction(tx).raw_transaction
    tx_hash = chain.w3.eth.send_raw_transaction(raw)
    return dict(chain.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30))


def refusal_of(chain: Chain, receipt: dict):
    """The pot's or the token's refusal a reverted transaction ended with (chain/pot/errors.py), read
    from anvil's trace of it."""
    from chain.pot.errors import refusal

    tx_hash = "0x" + bytes(receipt["transactionHash"]).hex()
    trace = chain.rpc("debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}])
    return refusal(trace.get("output") or "0x", trace.get("error", ""))


def stake_call(challenge_id: int, signed: SignedStake) -> str:
    """stakeWithAuthorization's calldata for a signed stake (chain/pot/abi.py): what anyone holding the
    signature can send."""
    from chain.pot import abi

    return abi.stake_with_authorization_data(
        abi.SignedStakeCall(
            challenge_id=challenge_id,
            commitment=signed.commitment,
            payer=signed.payer,
            amount=signed.amount,
            valid_after=signed.valid_after,
            valid_before=signed.valid_before,
            signature=signed.signature,
        )
    )


def post(api, challenge, signed: SignedStake, **changes):
    """POST /api/responses of a signed stake, with `changes` over its body."""
    body = signed.body(challenge.pk)
    authorization = {**body["authorization"], **changes.pop("authorization", {})}
    return api.post("/api/responses", {**body, **changes, "authorization": authorization}, format="json")


def post_guess(api, challenge, signed: SignedStake, **changes):
    return api.post("/api/responses/guess", {**signed.guess_body(challenge.pk), **changes}, format="json")


def pot_state(chain: Chain, challenge) -> dict:
    """The pot's own stateOf(challenge), by field name."""
    names = [
        "stakeCount", "pot", "guessDeadline", "earliestSeq", "highestSeq", "highestAmount", "finalized",
        "earliestPaid", "highestPaid", "sharePaid", "aborted", "refundedStake", "refundedBond", "thresholdChordSq",
    ]  # fmt: skip
    return dict(zip(names, chain.pot_contract().functions.stateOf(challenge.pk).call(), strict=True))


def token_as(chain: Chain, function: str, *args) -> None:
    """A call of the test USDC from its deployer, who holds its roles (pauser, blacklister, minter)."""
    tx = chain.token().functions[function](*args).transact({"from": chain.deployer})
    chain.w3.eth.wait_for_transaction_receipt(tx, timeout=30)
