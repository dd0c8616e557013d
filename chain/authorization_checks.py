"""The check of a claim paid by a signed authorization while its POST waits (docs/protocol.md 3.3a,
steps 1 to 3), registered with responses/hooks.py (register_authorization_check) by chain/apps.py:

1. the signature: what the payer signed is rebuilt from the claim (from = the submitter, to = the
   treasury, value = the stake's units, nonce = the claim's commitment) under the token's domain
   read from the chain (chain/token_domain.py); it must recover the submitter (`invalid_authorization`);
2. its window against this server's clock (`authorization_window`, unless the token shows it used:
   a claim re-posted after its payment was mined is taken whatever its window);
3. the token, in one JSON-RPC batch bounded by CHAIN_POST_CHECK_TIMEOUT_SECONDS: the authorization's
   state, the payer's balance, the latest block, and the relayed call simulated from the relayer's
   address. Used already: stored and verified, nothing relayed; cancelled: `authorization_cancelled`;
   the balance short of the stake: `insufficient_balance`; a simulation that reverts for any other
   reason (a blacklisted payer, a paused token): `invalid_authorization`.

So nothing the relayer would refuse to send is stored: a stranger who floods the POST with
authorizations from an empty wallet, or with signatures of someone else's, stores nothing and
makes the relayer spend no gas. When the token cannot be read in time the claim is stored pending
and the relayer checks again before it spends any gas (docs/protocol.md 2a, "The relayer")."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from eth_utils import keccak

from challenges.models import ChallengeAnchor
from responses.hooks import AuthorizationClaim, AuthorizationRead
from responses.reasons import Reason

from .authorization import (
    AUTHORIZATION_CANCELED_TOPIC,
    AUTHORIZATION_USED_TOPIC,
    Signature,
    TransferAuthorization,
    address_topic,
    encode_relayed_stake,
    nonce_topic,
    signed_by,
)
from .checks import post_check_client
from .client import ChainClient, ChainUnavailable, Reverted
from .relay_admission import relayer_address
from .token_domain import TokenDomainUnavailable, token_domain
from .transfers import to_hex

# The clock slack the window allows beyond RELAY_AUTHORIZATION_SECONDS (a page's clock may run ahead).
CLOCK_SLACK_SECONDS = 60
ZERO_ADDRESS = "0x" + "00" * 20
_AUTHORIZATION_STATE = keccak(text="authorizationState(address,bytes32)")[:4]
_BALANCE_OF = keccak(text="balanceOf(address)")[:4]


def in_window(*, valid_after: int, valid_before: int, now: float) -> bool:
    """Whether Geopoem accepts an authorization valid strictly between `valid_after` and
    `valid_before` (Unix seconds) at `now`: already valid, valid for at least
    RELAY_MIN_REMAINING_SECONDS more (time to relay it), and for at most RELAY_AUTHORIZATION_SECONDS
    plus the clock slack (what the operator could delay it by; docs/protocol.md 2a)."""
    return (
        valid_after <= now
        and valid_before >= now + settings.RELAY_MIN_REMAINING_SECONDS
        and valid_before <= now + settings.RELAY_AUTHORIZATION_SECONDS + CLOCK_SLACK_SECONDS
    )


def signed_authorization(claim: AuthorizationClaim) -> TransferAuthorization:
    """What the payer must have signed for this claim: built from the claim, never from the body."""
    return TransferAuthorization(
        from_address=claim.submitter_address,
        to_address=settings.TREASURY_ADDRESS,
        value=claim.stake_units,
        valid_after=claim.valid_after,
        valid_before=claim.valid_before,
        nonce=claim.commitment,
    )


def authorization_check_for_post(claim: AuthorizationClaim, *, client: object | None = None) -> AuthorizationRead:
    """Steps 1 to 3 of docs/protocol.md 3.3a, with the bounded client by default (what
    responses/authorizations.py runs while the POST waits)."""
    chain = client if isinstance(client, ChainClient) else post_check_client()
    try:
        domain = token_domain(client=chain)
    except TokenDomainUnavailable:
        return AuthorizationRead(unavailable=True)
    if domain is None:
        return AuthorizationRead(unsupported=True)
    authorization = signed_authorization(claim)
    if not signed_by(authorization, domain, claim.signature):
        return AuthorizationRead(code=Reason.INVALID_AUTHORIZATION)
    windowed = in_window(valid_after=claim.valid_after, valid_before=claim.valid_before, now=time.time())
    try:
        read = token_state(claim, authorization, client=chain)
    except ChainUnavailable:
        # Within its window: stored pending, and the relayer checks again before it spends gas.
        # Outside it only the chain could show it used: "cannot be checked right now", which may pass.
        return AuthorizationRead() if windowed else AuthorizationRead(unavailable=True)
    # The window bounds what is relayed, not what was paid: a claim re-posted after its payment was
    # mined (a page that lost the answer, a reload an hour later) is taken whatever its window says.
    if windowed or read.used or read.code == Reason.AUTHORIZATION_CANCELLED:
        return read
    return AuthorizationRead(code=Reason.AUTHORIZATION_WINDOW)


@dataclass(frozen=True)
class TokenRead:
    """One batch's answers about an authorization."""

    used_or_cancelled: bool
    balance: int
    head: int
    head_time: int
    simulation: Reverted | None  # None: the relayed call would succeed


def token_state(
    claim: AuthorizationClaim, authorization: TransferAuthorization, *, client: ChainClient
) -> AuthorizationRead:
    """Step 3: what the token says of the authorization now. Raises ChainUnavailable."""
    read = read_token(claim, authorization, client=client)
    search_from = max(read.head - settings.CHAIN_REORG_DEPTH_BLOCKS, 0)
    if read.used_or_cancelled:
        return _used_or_cancelled(claim, client=client, head=read.head, search_from=search_from)
    if read.balance < claim.stake_units:
        return AuthorizationRead(code=Reason.INSUFFICIENT_BALANCE)
    # The simulation ran in the latest block: its time must be inside the window for a revert to
    # say the token refuses the authorization itself (validAfter may be this very second).
    judged = claim.valid_after < read.head_time < claim.valid_before
    if read.simulation is not None and judged:
        return AuthorizationRead(code=Reason.INVALID_AUTHORIZATION)
    return AuthorizationRead(search_from_block=search_from)


def read_token(claim: AuthorizationClaim, authorization: TransferAuthorization, *, client: ChainClient) -> TokenRead:
    """authorizationState, balanceOf, the latest block and the relayed call's simulation, in one
    JSON-RPC batch (one round trip to one node)."""
    token = settings.USDC_ADDRESS
    submitter = _word(claim.submitter_address)
    relayed = encode_relayed_stake(authorization, Signature.parse(claim.signature), challenge_id=claim.challenge_id)
    found = client.batch(
        [
            (
                "eth_call",
                [_call(token, _AUTHORIZATION_STATE + submitter + bytes.fromhex(claim.commitment)), "latest"],
                "state",
            ),
            ("eth_call", [_call(token, _BALANCE_OF + submitter), "latest"], "balance"),
            ("eth_getBlockByNumber", ["latest", False], "head"),
            (
                "eth_call",
                [{"from": _relayer(settings.RELAYER_KEY), "to": token, "data": relayed}, "latest"],
                "simulation",
            ),
        ],
        reverts_answer=("simulation",),
    )
    state, balance, head = bytes(found["state"]), bytes(found["balance"]), found["head"]  # type: ignore[call-overload]
    if len(state) != 32 or len(balance) != 32 or not isinstance(head, Mapping):
        raise ChainUnavailable("the token's state or the latest block came back malformed")
    simulation = found["simulation"]
    return TokenRead(
        used_or_cancelled=int.from_bytes(state, "big") != 0,
        balance=int.from_bytes(balance, "big"),
        head=int(head["number"]),
        head_time=int(head["timestamp"]),
        simulation=simulation if isinstance(simulation, Reverted) else None,
    )


def _used_or_cancelled(
    claim: AuthorizationClaim, *, client: ChainClient, head: int, search_from: int
) -> AuthorizationRead:
    """The token spent the nonce: its own log says whether it was used (a stake, stored and verified,
    nothing relayed) or cancelled (refused). Searched from the challenge's anchor block: the nonce is
    the commitment, which names the challenge. Neither log found (a node whose logs lag its state):
    stored pending, and the relayer checks again."""
    anchor = (
        ChallengeAnchor.objects.filter(challenge_id=claim.challenge_id).values_list("block_number", flat=True).first()
    )
    logs = client.get_logs(
        {
            "address": settings.USDC_ADDRESS,
            "fromBlock": anchor or 0,
            "toBlock": head,
            "topics": [
                [AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC],
                address_topic(claim.submitter_address),
                nonce_topic(claim.commitment),
            ],
        }
    )
    for log in logs:
        topic = to_hex(log["topics"][0])
        if topic == AUTHORIZATION_CANCELED_TOPIC:
            return AuthorizationRead(code=Reason.AUTHORIZATION_CANCELLED)
        if topic == AUTHORIZATION_USED_TOPIC:
            # Verification looks for the use from before its block (it may move in a reorg).
            return AuthorizationRead(used=True, search_from_block=min(int(log["blockNumber"]), search_from))
    return AuthorizationRead(search_from_block=search_from)


@functools.lru_cache(maxsize=4)
def _relayer(key: str) -> str:
    """The address the relayed call is simulated from: the relayer's (relay_admission.py reads the
    same setting), else the zero address. Kept per key: deriving it costs 0.3 ms of CPU a claim."""
    return relayer_address() or ZERO_ADDRESS


def _call(token: str, data: bytes) -> dict[str, str]:
    return {"to": token, "data": "0x" + data.hex()}


def _word(address: str) -> bytes:
    return bytes.fromhex(address_topic(address)[2:])
