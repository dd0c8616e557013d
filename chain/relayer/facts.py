"""What the relayer reads from the chain before it spends gas (docs/protocol.md section 2a, "The
relayer"), for many claims at once in JSON-RPC batches: its own pending nonce, balance and the
fees, and per claim the token's authorizationState, the payer's USDC balance and a simulation of
the relayed call from the relayer (eth_call). A used authorization is told from a cancelled one by
the token's AuthorizationCanceled log, read only for those."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.conf import settings
from eth_utils import to_checksum_address

from .authorization import (
    AUTHORIZATION_CANCELED_TOPIC,
    AuthorizationError,
    Signature,
    TransferAuthorization,
    address_topic,
    encode_relayed_stake,
    nonce_topic,
)
from .calldata import CalldataError
from .client import ChainClient, ChainUnavailable, Reverted
from .relay_rpc import (
    Call,
    Fees,
    as_int,
    authorization_state_call,
    balance_of_call,
    market_fees,
    rpc_batch,
    simulation_call,
)
from .relay_selectors import QueuedClaim
from .relay_signing import RELAY_GAS


def stake_calldata(claim: QueuedClaim) -> str | None:
    """The relayed call's 324 bytes for a claim (chain/authorization.py), or None when what is
    stored cannot make one (the POST checked it: never expected)."""
    try:
        authorization = TransferAuthorization(
            from_address=claim.submitter_address,
            to_address=settings.TREASURY_ADDRESS,
            value=claim.stake_units,
            valid_after=claim.valid_after,
            valid_before=claim.valid_before,
            nonce=claim.commitment,
        )
        return encode_relayed_stake(authorization, Signature.parse(claim.signature), challenge_id=claim.challenge_id)
    except (AuthorizationError, CalldataError):
        return None


@dataclass(frozen=True)
class ClaimFacts:
    used: bool  # authorizationState: used or cancelled
    cancelled: bool
    balance: int  # the payer's USDC, in token units
    simulation: str | None  # why the relayed call would revert; None when it would succeed


@dataclass(frozen=True)
class RelayerFacts:
    pending_nonce: int
    balance: int  # wei
    fees: Fees
    block_time: int  # the latest block's timestamp
    claims: dict[int, ClaimFacts]


def relayer_calls(address: str) -> list[Call]:
    return [
        ("eth_getTransactionCount", [address, "pending"]),
        ("eth_getBalance", [address, "latest"]),
        ("eth_getBlockByNumber", ["latest", False]),
        ("eth_maxPriorityFeePerGas", []),
    ]


def read_fees(block: dict, suggested_tip: str) -> Fees:
    return market_fees(base_fee=as_int(block.get("baseFeePerGas") or "0x0"), suggested_tip=as_int(suggested_tip))


def read_facts(client: ChainClient, *, address: str, claims: Sequence[QueuedClaim]) -> RelayerFacts:
    """One round of batches for the relayer and `claims` (three calls each, then one log query per
    authorization found used)."""
    token = to_checksum_address(settings.USDC_ADDRESS)
    calls = relayer_calls(address)
    for claim in claims:
        data = stake_calldata(claim) or "0x"
        calls += [
            authorization_state_call(token=token, authorizer=claim.submitter_address, nonce=claim.commitment),
            balance_of_call(token=token, owner=claim.submitter_address),
            simulation_call(token=token, sender=address, data=data, gas=RELAY_GAS),
        ]
    answers = rpc_batch(client, calls)
    pending, balance, block, tip = answers[:4]
    facts: dict[int, ClaimFacts] = {}
    used: list[QueuedClaim] = []
    for index, claim in enumerate(claims):
        state, payer_balance, simulation = answers[4 + 3 * index : 7 + 3 * index]
        if isinstance(state, Reverted) or isinstance(payer_balance, Reverted):
            raise ValueError(f"the token at {token} does not answer authorizationState and balanceOf")
        is_used = as_int(state) != 0
        if is_used:
            used.append(claim)
        why = (simulation.message or "reverted") if isinstance(simulation, Reverted) else None
        if stake_calldata(claim) is None:
            why = "the stored authorization is malformed"
        facts[claim.response_id] = ClaimFacts(
            used=is_used, cancelled=False, balance=as_int(payer_balance), simulation=why
        )
    for response_id in cancelled_among(client, used):
        facts[response_id] = replace(facts[response_id], cancelled=True)
    return RelayerFacts(
        pending_nonce=as_int(pending),
        balance=as_int(balance),
        fees=read_fees(block, tip),
        block_time=as_int(block["timestamp"]),
        claims=facts,
    )


def cancelled_among(client: ChainClient, claims: Sequence[QueuedClaim]) -> set[int]:
    """The claims among `claims` whose authorization the payer cancelled (AuthorizationCanceled)."""
    if not claims:
        return set()
    token = to_checksum_address(settings.USDC_ADDRESS)
    calls: list[Call] = [
        (
            "eth_getLogs",
            [
                {
                    "address": token,
                    "topics": [
                        AUTHORIZATION_CANCELED_TOPIC,
                        address_topic(claim.submitter_address),
                        nonce_topic(claim.commitment),
                    ],
                    "fromBlock": hex(claim.search_from_block or 0),
                    "toBlock": "latest",
                }
            ],
        )
        for claim in claims
    ]
    logs = rpc_batch(client, calls)
    return {claim.response_id for claim, found in zip(claims, logs, strict=True) if found}


def read_next_block_fees(client: ChainClient) -> Fees:
    """The market's fees for the block being built: the pending block's base fee where the node
    gives one (a node refused a transaction under the latest block's), else the latest block's."""
    block, tip = rpc_batch(client, [("eth_getBlockByNumber", ["latest", False]), ("eth_maxPriorityFeePerGas", [])])
    try:
        pending = rpc_batch(client, [("eth_getBlockByNumber", ["pending", False])])[0]
    except ChainUnavailable:  # a provider without the pending tag
        pending = None
    base = max(as_int(block.get("baseFeePerGas") or "0x0"), as_int((pending or {}).get("baseFeePerGas") or "0x0"))
    return market_fees(base_fee=base, suggested_tip=as_int(tip))


def read_relayer(client: ChainClient, *, address: str) -> tuple[int, int, Fees, int]:
    """(pending nonce, balance, market fees, latest block time) of the relayer, in one batch."""
    pending, balance, block, tip = rpc_batch(client, relayer_calls(address))
    return as_int(pending), as_int(balance), read_fees(block, tip), as_int(block["timestamp"])
