"""The chain's side of the lower apps' ports (challenges/ports.py, responses/ports.py), installed by
chain/apps.py: the opening's task, the relayer's admission and outbox, and the check of a signed stake
while its POST waits (docs/protocol.md 3.1): the signature against the nonce this server computes,
its window, then one simulation of the very call the relayer would send, whose refusal (the pot's
named error or the token's revert text) is the player's answer."""

from __future__ import annotations

import logging
import threading
import time
from functools import lru_cache

from celery import current_app
from django.conf import settings

from responses.models import SignedStake, Stake
from responses.ports import RelayAdmission, SignedStakeCheck, SignedStakeRequest

from ..node.calls import rpc_batch, simulation_call
from ..node.client import ChainClient, ChainUnavailable, Reverted
from ..relayer.admission import relay_admit
from ..relayer.outbox import call_queue
from ..token.authorization import ReceiveAuthorization, signed_by
from ..token.domain import TokenDomainUnavailable, token_domain
from . import abi
from .encoding import stake_nonce
from .errors import refusal

logger = logging.getLogger(__name__)

CLOCK_SLACK_SECONDS = 60
ZERO_ADDRESS = "0x" + "00" * 20
INVALID_AUTHORIZATION = (
    "invalid_authorization",
    "The payment authorization is not this wallet's signature for this stake.",
)
AUTHORIZATION_WINDOW = (
    "authorization_window",
    "The payment authorization has expired, or is valid for longer than Geopoem accepts; sign a new one.",
)


_clients = threading.local()


def post_client() -> ChainClient:
    """The client of the POST's checks, one per thread of the web process and kept: building one
    builds a Web3 and its ABI registry for each node and opens a new connection on its first call,
    about a millisecond of CPU that every POST paid again (docs/performance.md section 2). Per
    thread, because a requests session is not promised to be thread-safe; rebuilt when the
    settings it was built from change (the tests change them)."""
    key = (tuple(settings.CHAIN_RPC_URLS), settings.CHAIN_POST_CHECK_TIMEOUT_SECONDS)
    kept = getattr(_clients, "kept", None)
    if kept is None or kept[0] != key:
        kept = _clients.kept = (key, ChainClient(key[0], timeout=key[1]))
    return kept[1]


def in_window(*, valid_after: int, valid_before: int, now: float) -> bool:
    """What the site relays: valid now, for at least RELAY_MIN_REMAINING_SECONDS, and for at most
    RELAY_AUTHORIZATION_SECONDS (plus clock slack): the lifetime bounds what a relayer holding it
    could do with it."""
    return (
        valid_after <= now
        and valid_before - now >= settings.RELAY_MIN_REMAINING_SECONDS
        and valid_before - now <= settings.RELAY_AUTHORIZATION_SECONDS + CLOCK_SLACK_SECONDS
    )


def stake_call(row: SignedStake | SignedStakeRequest) -> str:
    """The calldata of stakeWithAuthorization for a signed stake."""
    return _stake_call(
        abi.SignedStakeCall(
            challenge_id=row.challenge_id,
            commitment=row.commitment,
            payer=row.payer,
            amount=int(row.amount_units),
            valid_after=row.valid_after,
            valid_before=row.valid_before,
            signature=row.signature,
        )
    )


# The POST encodes the same call twice, for its simulation and for the relayer's outbox: the second
# is the first's. A few entries are enough (the two come within one request).
_stake_call = lru_cache(maxsize=64)(abi.stake_with_authorization_data)


class ChainAdapter:
    """Both lower apps' ChainPort."""

    def opening_queued(self, *, challenge_id: int) -> None:
        # By name: the tasks sit above the pot's steps (pyproject.toml, the chain's inner layers).
        current_app.send_task("chain.open_challenge", args=[challenge_id])

    def relay_admit(self, *, payer: str) -> RelayAdmission:
        return relay_admit(payer=payer)

    def signed_stake_stored(self, *, signed_stake: SignedStake) -> None:
        row = signed_stake
        call_queue(
            kind="stake",
            key=f"stake:{row.pk}",
            challenge_id=row.challenge_id,
            data=stake_call(row),
            signed_stake_id=row.pk,
            new_key=True,  # the row was inserted in this transaction: no call has its key
        )

    def check_signed_stake(self, request: SignedStakeRequest, *, terms_digest: str) -> SignedStakeCheck:
        client = post_client()
        try:
            domain = token_domain(client=client)
        except TokenDomainUnavailable:
            return SignedStakeCheck(unavailable=True)
        if domain is None:
            return SignedStakeCheck(unsupported=True)
        digest = terms_digest
        if not digest:
            return SignedStakeCheck(refusal_code="not_opened", refusal_sentence=refusal("0x").sentence)
        nonce = stake_nonce(
            chain_id=settings.CHAIN_ID,
            pot=settings.POT_ADDRESS,
            challenge_id=request.challenge_id,
            terms_digest=digest,
            commitment=request.commitment,
            amount=request.amount_units,
        )
        authorization = ReceiveAuthorization(
            from_address=request.payer,
            to_address=settings.POT_ADDRESS,
            value=request.amount_units,
            valid_after=request.valid_after,
            valid_before=request.valid_before,
            nonce=nonce,
        )
        if not signed_by(authorization, domain, request.signature):
            return SignedStakeCheck(
                nonce=nonce, refusal_code=INVALID_AUTHORIZATION[0], refusal_sentence=INVALID_AUTHORIZATION[1]
            )
        if not in_window(valid_after=request.valid_after, valid_before=request.valid_before, now=time.time()):
            return SignedStakeCheck(
                nonce=nonce, refusal_code=AUTHORIZATION_WINDOW[0], refusal_sentence=AUTHORIZATION_WINDOW[1]
            )
        return self._simulate(client, request, nonce)

    def _simulate(self, client: ChainClient, request: SignedStakeRequest, nonce: str) -> SignedStakeCheck:
        """The relayer's very call, simulated on the latest block. No node answering refuses nothing:
        the stake is stored and the relayer checks again before it spends gas."""
        sender = ZERO_ADDRESS
        try:
            (answer,) = rpc_batch(
                client, [simulation_call(to=settings.POT_ADDRESS, sender=sender, data=stake_call(request), gas=300_000)]
            )
        except ChainUnavailable as exc:
            logger.info("signed stake of %s: no node answered its simulation (%s); stored", request.payer, exc)
            return SignedStakeCheck(nonce=nonce)
        if not isinstance(answer, Reverted):
            return SignedStakeCheck(nonce=nonce)
        why = refusal(answer.data, answer.message)
        if (
            why.code == "authorization_used"
            and Stake.objects.filter(
                challenge_id=request.challenge_id, payer=request.payer, commitment=request.commitment
            ).exists()
        ):
            # Someone sent it already (the player, or anyone): its stake is in the pot.
            return SignedStakeCheck(nonce=nonce)
        return SignedStakeCheck(nonce=nonce, refusal_code=why.code, refusal_sentence=why.sentence)
