"""The checks of a payment (docs/protocol.md section 2), written once, in the order the protocol
gives them: the first that fails gives the claim's reason code. verify_challenge.py and the page's
verifier (frontend/src/lib/verify-outcomes.ts, firstFailingRule) apply the same order.

- PAYMENT_CHECKS is what the worker runs on a transaction mined deep enough in a canonical block
  with a successful receipt (chain/verification.py, payment_decide, which reads those first).
- AUTHORIZATION_CHECKS is the same for a claim paid by a signed authorization (section 2a), run on
  the transaction that used it, once that is deep enough in a canonical block
  (chain/authorization_verification.py, which finds the use, a cancel or the expiry first).
- POST_CHECKS is the part of the same list that reads the transaction alone, run while a claim's
  POST waits (claim_check_at_post): the checks that tell a payer's claim from a stranger's. It
  leaves out the ether sent, the recipient and the amount: a wrong one is the payer's own mistake,
  so the claim is stored and rejected where its payer sees why. A POST refuses a claim only with a
  code of REFUSED_AT_POST; any other failure ends the POST's check without a verdict."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from django.conf import settings

from challenges.models import AnchorStatus, Challenge, ChallengeAnchor
from responses.hooks import ClaimRead
from responses.reasons import Reason

from .calldata import TRANSFER_SELECTOR, CalldataError, DecodedTransfer, decode_transfer
from .client import ChainClient, ChainUnavailable
from .rpc import Block, Log, Receipt, Transaction
from .transfers import Transfer, block_time, find_transfer, transfer_from_log


@dataclass(frozen=True)
class Stake:
    """A claim beside the transaction its hash names: all a POST can know."""

    tx: Transaction
    submitter_address: str
    commitment: str
    challenge_id: int

    @functools.cached_property
    def calldata(self) -> DecodedTransfer | None:
        """The transfer call the transaction makes, or None when its input is not one."""
        try:
            return decode_transfer(bytes(self.tx["input"]))
        except CalldataError:
            return None


@dataclass(frozen=True)
class MinedStake(Stake):
    """A claim beside its transaction mined deep enough: what the worker decides on."""

    receipt: Receipt
    block: Block
    stake_units: int  # the claim's stake in token units (challenges/money.py, token_units)
    challenge: Challenge  # with its anchor joined (select_related("challenge__anchor"))

    @functools.cached_property
    def mined_at(self) -> datetime:
        return block_time(self.block)

    @functools.cached_property
    def transfer(self) -> Transfer | None:
        """The money itself: a Transfer(sender, treasury, stake) the USDC contract emitted."""
        return find_transfer(
            self.receipt,
            usdc=settings.USDC_ADDRESS,
            sender=str(self.tx["from"]),
            recipient=settings.TREASURY_ADDRESS,
            units=self.stake_units,
        )


@dataclass(frozen=True)
class UsedAuthorization:
    """A claim paid by authorization beside the transaction that used it (the receipt holding the
    token's AuthorizationUsed(submitter, commitment) log at `used_log_index`), mined deep enough in
    a canonical block: what the worker decides on. Who sent it and what it called do not matter."""

    receipt: Receipt
    block: Block
    used_log_index: int
    submitter_address: str
    stake_units: int
    challenge: Challenge  # with its anchor joined

    @functools.cached_property
    def mined_at(self) -> datetime:
        return block_time(self.block)

    @functools.cached_property
    def transfer(self) -> Transfer | None:
        """The log right after the AuthorizationUsed one (FiatToken emits the two back to back), when
        it is a Transfer the USDC contract emitted: the payment, whatever its parties and amount."""
        after = self.used_log_index + 1
        log: Log | None = next((g for g in self.receipt["logs"] if int(g.get("logIndex", -1)) == after), None)
        if log is None or str(log.get("address", "")).lower() != settings.USDC_ADDRESS.lower():
            return None
        return transfer_from_log(log)


class _Mined(Protocol):
    """What the anchor and window checks read, from either kind of payment."""

    @property
    def receipt(self) -> Receipt: ...

    @property
    def challenge(self) -> Challenge: ...

    @property
    def mined_at(self) -> datetime: ...


def _calldata(stake: Stake) -> DecodedTransfer:
    calldata = stake.calldata
    assert calldata is not None, "is_a_transfer comes earlier in the list"
    return calldata


# --- The checks, each: the reason code when the payment fails it, else None --------------------


def calls_usdc(stake: Stake) -> str | None:
    """A direct call of the USDC contract. Our calldata sent to another contract is another
    token; anything else is a wallet or a router."""
    if str(stake.tx.get("to") or "").lower() == settings.USDC_ADDRESS.lower():
        return None
    if bytes(stake.tx["input"])[:4] == TRANSFER_SELECTOR and int(stake.tx["value"]) == 0:
        return Reason.WRONG_TOKEN
    return Reason.UNSUPPORTED_TRANSACTION


def sends_no_ether(stake: Stake) -> str | None:
    return Reason.UNSUPPORTED_TRANSACTION if int(stake.tx["value"]) != 0 else None


def from_the_claimant(stake: Stake) -> str | None:
    """The sender is the address the claim names."""
    return Reason.WRONG_SENDER if str(stake.tx["from"]).lower() != stake.submitter_address.lower() else None


def is_the_payers(stake: Stake) -> bool:
    """Sent from the claim's address and carrying this claim's commitment (whatever the token, the
    recipient or the amount): a claim only the payer's page could post (docs/protocol.md 3.2). A
    stranger can name any address in a claim, and pick any transaction that address sent, but cannot
    make its calldata carry the commitment of a guess the payer did not make."""
    calldata = stake.calldata
    return from_the_claimant(stake) is None and calldata is not None and calldata.commitment == stake.commitment.lower()


def is_a_transfer(stake: Stake) -> str | None:
    return Reason.UNSUPPORTED_TRANSACTION if stake.calldata is None else None


def to_the_treasury(stake: Stake) -> str | None:
    return Reason.WRONG_RECIPIENT if _calldata(stake).to.lower() != settings.TREASURY_ADDRESS.lower() else None


def of_the_stake(stake: MinedStake) -> str | None:
    return Reason.AMOUNT_MISMATCH if _calldata(stake).amount_units != stake.stake_units else None


def carries_the_commitment(stake: Stake) -> str | None:
    """The calldata carries this guess's commitment (a plain transfer carries none)."""
    commitment = _calldata(stake).commitment
    return Reason.COMMITMENT_MISMATCH if commitment is None or commitment != stake.commitment.lower() else None


def names_the_challenge(stake: Stake) -> str | None:
    return Reason.CHALLENGE_MISMATCH if _calldata(stake).challenge_id != stake.challenge_id else None


def moved_the_money(stake: MinedStake) -> str | None:
    return Reason.NO_TRANSFER_LOG if stake.transfer is None else None


def after_the_anchor(stake: _Mined) -> str | None:
    """Mined after the terms were anchored (docs/protocol.md section 6)."""
    return None if _after_anchor(stake.challenge, int(stake.receipt["blockNumber"]), stake.mined_at) else Reason.EARLY


def while_open(stake: _Mined) -> str | None:
    return None if _in_open_window(stake.challenge, stake.mined_at) else Reason.LATE


def _in_open_window(challenge: Challenge, block_time: datetime) -> bool:
    if challenge.start_timestamp is None:
        return False
    # Block times are whole seconds; the challenge opened at a sub-second server time. A block of the
    # opening second counts as open (it cannot carry a commitment made before the id was public).
    opened = challenge.start_timestamp.replace(microsecond=0)
    return opened <= block_time and (challenge.closed_at is None or block_time <= challenge.closed_at)


def _after_anchor(challenge: Challenge, block_number: int, block_time: datetime) -> bool:
    """A stake counts only in a block after the anchor's block and at or after the anchored opensAt
    (docs/protocol.md section 6). A demonstration challenge has no anchor and this does not apply;
    any other challenge without a confirmed anchor was never open, so no stake of it counts."""
    if challenge.is_demo:
        return True
    try:
        anchor = challenge.anchor  # joined by the callers' select_related
    except ChallengeAnchor.DoesNotExist:
        return False
    # A confirmed anchor always has its block (challenges/services.py, anchor_confirmed sets both).
    if anchor.status != AnchorStatus.CONFIRMED or anchor.block_number is None:
        return False
    return block_number > anchor.block_number and int(block_time.timestamp()) >= anchor.opens_at


# --- A claim paid by authorization: the Transfer right after its AuthorizationUsed log ----------


def transfer_follows_the_use(used: UsedAuthorization) -> str | None:
    """The USDC contract's Transfer from the payer right after the use (else no money moved for it)."""
    transfer = used.transfer
    from_the_payer = transfer is not None and transfer.from_.lower() == used.submitter_address.lower()
    return None if from_the_payer else Reason.NO_TRANSFER_LOG


def transfer_to_the_treasury(used: UsedAuthorization) -> str | None:
    transfer = used.transfer
    assert transfer is not None, "transfer_follows_the_use comes earlier in the list"
    return None if transfer.to.lower() == settings.TREASURY_ADDRESS.lower() else Reason.WRONG_RECIPIENT


def transfer_of_the_stake(used: UsedAuthorization) -> str | None:
    transfer = used.transfer
    assert transfer is not None, "transfer_follows_the_use comes earlier in the list"
    return None if transfer.amount_units == used.stake_units else Reason.AMOUNT_MISMATCH


PAYMENT_CHECKS: tuple[Callable[[MinedStake], str | None], ...] = (
    calls_usdc,
    sends_no_ether,
    from_the_claimant,
    is_a_transfer,
    to_the_treasury,
    of_the_stake,
    carries_the_commitment,
    names_the_challenge,
    moved_the_money,
    after_the_anchor,
    while_open,
)
# docs/protocol.md section 2a, rules 3 and 4 (rules 1 and 2, the use itself and its depth, are read first).
AUTHORIZATION_CHECKS: tuple[Callable[[UsedAuthorization], str | None], ...] = (
    transfer_follows_the_use,
    transfer_to_the_treasury,
    transfer_of_the_stake,
    after_the_anchor,
    while_open,
)
POST_CHECKS: tuple[Callable[[Stake], str | None], ...] = (
    calls_usdc,
    from_the_claimant,
    is_a_transfer,
    carries_the_commitment,
    names_the_challenge,
)
# The claim can never be confirmed by this transaction: another sender, another guess, another challenge.
REFUSED_AT_POST = (Reason.WRONG_SENDER, Reason.COMMITMENT_MISMATCH, Reason.CHALLENGE_MISMATCH)


S = TypeVar("S")


def first_failure(checks: tuple[Callable[[S], str | None], ...], stake: S) -> str | None:
    """The reason code of the first check the payment fails, in the list's order, or None."""
    for check in checks:
        code = check(stake)
        if code is not None:
            return code
    return None


# --- While the POST waits -----------------------------------------------------------------------


def claim_check_at_post(
    *, transaction_hash: str, submitter_address: str, commitment: str, challenge_id: int, client: ChainClient
) -> ClaimRead:
    """POST_CHECKS on the transaction as the node knows it now. The read's `code` is the reason code
    of a claim that can never be confirmed by this transaction (another sender, another guess's
    commitment, another challenge), or None when it may match or the chain cannot say (no node
    answered in time, the node does not know the hash, a payment the full verification must judge).
    The sender, nonce and calldata are fixed by the transaction's hash, so a transaction still in
    the node's mempool is judged as safely as a mined one. One RPC call."""
    try:
        tx = client.get_transaction(transaction_hash)
    except ChainUnavailable:
        return ClaimRead()
    if tx is None:
        return ClaimRead()
    stake = Stake(tx=tx, submitter_address=submitter_address, commitment=commitment, challenge_id=challenge_id)
    code = first_failure(POST_CHECKS, stake)
    payers = is_the_payers(stake)
    return ClaimRead(
        code=code if code in REFUSED_AT_POST else None,
        mined=tx.get("blockNumber") is not None,
        sent_by_submitter=payers,
        nonce=int(tx["nonce"]) if payers else None,
    )


def claim_check_for_post(
    *,
    transaction_hash: str,
    submitter_address: str,
    commitment: str,
    challenge_id: int,
    client: ChainClient | None = None,
) -> ClaimRead:
    """claim_check_at_post with the bounded client by default: what response_create runs while the
    POST waits (registered in responses/hooks.py by chain/apps.py)."""
    return claim_check_at_post(
        transaction_hash=transaction_hash,
        submitter_address=submitter_address,
        commitment=commitment,
        challenge_id=challenge_id,
        client=client or post_check_client(),
    )


def post_check_client() -> ChainClient:
    """The client of claim_check_at_post: short timeouts, so a slow node cannot hold the POST."""
    return _client_for(tuple(settings.CHAIN_RPC_URLS), settings.CHAIN_POST_CHECK_TIMEOUT_SECONDS)


@functools.lru_cache(maxsize=4)
def _client_for(urls: tuple[str, ...], timeout: float) -> ChainClient:
    # Built once per configuration: building the web3 nodes costs about 5 ms, on every POST otherwise.
    return ChainClient(urls, timeout=timeout)
