"""The terms of a challenge anchored on chain (docs/protocol.md section 6): reading the registry's
TermsAnchored logs, sending `anchor(...)` signed with the operator key, and the worker's step that
moves a challenge's anchor from queued to confirmed (or failed, saying why) through the services of
challenges/services.py.

The key signs locally (eth-account) and the raw transaction goes through the configured RPC nodes,
so the same code works on anvil and on Sepolia; no node ever holds the key."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from web3 import Web3
from web3.exceptions import ContractCustomError, ContractLogicError

from challenges.models import AnchorStatus, ChallengeAnchor
from challenges.services import (
    anchor_confirmed,
    anchor_failed,
    anchor_note,
    anchor_requeue,
    anchor_sent,
    anchor_touch,
)

from .client import ChainClient, ChainUnavailable, get_client
from .contracts import load_artifact
from .transfers import field, is_deep_enough, to_hex

logger = logging.getLogger(__name__)

TERMS_ANCHORED_SIGNATURE = "TermsAnchored(uint256,bytes32,bytes32,uint64,uint32)"
TERMS_ANCHORED_TOPIC = "0x" + keccak(text=TERMS_ANCHORED_SIGNATURE).hex()
# The registry's custom errors (contracts/TermsRegistry.sol and OpenZeppelin's Ownable), by selector.
REGISTRY_ERRORS = {
    "0x" + keccak(text=signature).hex()[:8]: name
    for signature, name in (
        ("AlreadyAnchored(uint256)", "AlreadyAnchored"),
        ("OwnableUnauthorizedAccount(address)", "OwnableUnauthorizedAccount"),
    )
}
# A registry anchor() costs about 50,000 gas (a cold storage slot and the log); a fixed limit, so a
# transaction that would revert is still sent and its receipt says so, rather than failing to estimate.
ANCHOR_GAS = 120_000


class AnchorPending(Exception):
    """Nothing to decide yet (the transaction is not mined or not deep enough): look again later."""


@dataclass(frozen=True)
class AnchorLog:
    """One TermsAnchored log, decoded. Hashes are lowercase hex without 0x, as the site stores them."""

    registry: str
    challenge_id: int
    solution_sha256: str
    terms_sha256: str
    opens_at: int
    proximity_threshold_m: int
    transaction_hash: str
    block_number: int
    block_hash: str
    log_index: int

    def values(self) -> dict[str, Any]:
        return {
            "solution_sha256": self.solution_sha256,
            "terms_sha256": self.terms_sha256,
            "opens_at": self.opens_at,
            "proximity_threshold_m": self.proximity_threshold_m,
        }


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    text = str(value)
    return bytes.fromhex(text[2:] if text[:2] in ("0x", "0X") else text)


def anchor_log_decode(log: Any) -> AnchorLog | None:
    """The TermsAnchored a log records (topic 0, the id as topic 1, four data words), or None."""
    topics = [_bytes(t) for t in field(log, "topics")]
    data = _bytes(field(log, "data"))
    if len(topics) != 2 or "0x" + topics[0].hex() != TERMS_ANCHORED_TOPIC or len(data) != 128:
        return None
    words = [data[i : i + 32] for i in range(0, 128, 32)]
    return AnchorLog(
        registry=to_checksum_address(field(log, "address")),
        challenge_id=int.from_bytes(topics[1], "big"),
        solution_sha256=words[0].hex(),
        terms_sha256=words[1].hex(),
        opens_at=int.from_bytes(words[2], "big"),
        proximity_threshold_m=int.from_bytes(words[3], "big"),
        transaction_hash=to_hex(field(log, "transactionHash")),
        block_number=int(field(log, "blockNumber")),
        block_hash=to_hex(field(log, "blockHash")),
        log_index=int(field(log, "logIndex")),
    )


def anchor_find(client: ChainClient, *, registry: str, challenge_id: int) -> AnchorLog | None:
    """The anchor of a challenge: its first TermsAnchored log on the registry in chain order."""
    logs = client.get_logs(
        {
            "address": to_checksum_address(registry),
            "topics": [TERMS_ANCHORED_TOPIC, "0x" + challenge_id.to_bytes(32, "big").hex()],
            "fromBlock": 0,
            "toBlock": "latest",
        }
    )
    decoded = [a for a in (anchor_log_decode(log) for log in logs) if a is not None]
    decoded.sort(key=lambda a: (a.block_number, a.log_index))
    return decoded[0] if decoded else None


def registry_anchored_at(client: ChainClient, *, registry: str, challenge_id: int) -> int:
    """The registry's own answer: the block a challenge id was anchored in, 0 when it was not."""
    abi = load_artifact("TermsRegistry")["abi"]
    address = to_checksum_address(registry)
    return client.call(
        "anchoredAt", lambda w3: w3.eth.contract(address=address, abi=abi).functions.anchoredAt(challenge_id).call()
    )


def operator_account(key: str | None = None):
    """The operator's local account from ANCHOR_OPERATOR_KEY (a 0x private key)."""
    return Account.from_key(key or settings.ANCHOR_OPERATOR_KEY)


def anchor_calldata(
    *, challenge_id: int, solution_sha256: str, terms_sha256: str, opens_at: int, threshold: int
) -> str:
    contract = Web3().eth.contract(abi=load_artifact("TermsRegistry")["abi"])
    return contract.encode_abi(
        "anchor",
        [challenge_id, bytes.fromhex(solution_sha256), bytes.fromhex(terms_sha256), opens_at, threshold],
    )


def revert_name(exc: BaseException) -> str:
    """The registry error a revert carries ("AlreadyAnchored", ...), else the node's message."""
    data = getattr(exc, "data", None)
    if isinstance(data, str) and data[:10].lower() in REGISTRY_ERRORS:
        return REGISTRY_ERRORS[data[:10].lower()]
    return str(exc) or type(exc).__name__


def anchor_simulate(client: ChainClient, *, registry: str, sender: str, calldata: str) -> str | None:
    """Run anchor(...) as an eth_call from `sender`: None when it would succeed, else why it would revert."""

    def run(w3: Web3) -> str | None:
        try:
            w3.eth.call({"from": sender, "to": registry, "data": calldata, "gas": ANCHOR_GAS})
        except (ContractCustomError, ContractLogicError) as exc:
            return revert_name(exc)
        return None

    return client.call("eth_call anchor", run)


@dataclass(frozen=True)
class Sent:
    transaction_hash: str
    sender: str
    nonce: int


def anchor_transaction_send(
    client: ChainClient,
    *,
    registry: str,
    calldata: str,
    key: str | None = None,
    nonce: int | None = None,
    bump: int = 1,
) -> Sent:
    """Sign anchor(...) with the operator key and send the raw transaction. `nonce`: replace the
    transaction of that nonce (a stuck one), with fees `bump` times the current ones so the node
    accepts the replacement."""
    account = operator_account(key)

    def send(w3: Web3) -> Sent:
        use_nonce = nonce if nonce is not None else w3.eth.get_transaction_count(account.address, "pending")
        base_fee = int(w3.eth.get_block("latest").get("baseFeePerGas") or 0)
        tip = max(int(w3.eth.max_priority_fee), 10**9)  # at least 1 gwei, Sepolia's usual floor
        tx = {
            "type": 2,
            "chainId": w3.eth.chain_id,
            "nonce": use_nonce,
            "to": to_checksum_address(registry),
            "value": 0,
            "data": calldata,
            "gas": ANCHOR_GAS,
            "maxPriorityFeePerGas": tip * bump,
            "maxFeePerGas": (2 * base_fee + tip) * bump,
        }
        signed = account.sign_transaction(tx)
        tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
        return Sent(transaction_hash=to_hex(tx_hash), sender=account.address, nonce=use_nonce)

    return client.call("send anchor", send)


# --- The worker's step (chain/tasks.py, anchor_challenge) ------------------------------------

OTHER_TERMS = (
    "Challenge #{id} is already anchored on the registry {registry} with other terms (transaction {tx}, "
    "block {block}): the first anchor wins and can never change. This happens when the database was reset "
    "and challenge ids started again against a registry used before: deploy a new registry "
    "(manage.py deploy_registry), set ANCHOR_REGISTRY_ADDRESS to it and retry the anchor."
)


def _differences(anchor: ChallengeAnchor, found: AnchorLog) -> list[str]:
    return [
        f"{name}: on chain {found.values()[name]}, the challenge's {getattr(anchor, name)}"
        for name in ("solution_sha256", "terms_sha256", "opens_at", "proximity_threshold_m")
        if found.values()[name] != getattr(anchor, name)
    ]


def _other_terms(anchor: ChallengeAnchor, found: AnchorLog) -> str:
    text = OTHER_TERMS.format(
        id=anchor.challenge_id, registry=anchor.registry_address, tx=found.transaction_hash, block=found.block_number
    )
    return text + " Differences: " + "; ".join(_differences(anchor, found)) + "."


def anchor_advance(*, challenge_id: int, client: ChainClient | None = None) -> str:
    """Move one challenge's anchor as far as the chain allows now; returns its status. Raises
    AnchorPending while the transaction is not yet deep enough, ChainUnavailable when no node
    answers (both: try again later). Safe to run twice at once: every move is a conditional UPDATE."""
    client = client or get_client()
    for _ in range(3):  # queued -> sent (sent or adopted) -> confirmed, in one run when the chain allows
        anchor = ChallengeAnchor.objects.filter(challenge_id=challenge_id).first()
        if anchor is None or anchor.status in (AnchorStatus.CONFIRMED, AnchorStatus.FAILED):
            return anchor.status if anchor else ""
        if anchor.status == AnchorStatus.QUEUED:
            _send(anchor, client)
        else:
            _follow(anchor, client)
    anchor = ChallengeAnchor.objects.get(challenge_id=challenge_id)
    if anchor.status in (AnchorStatus.QUEUED, AnchorStatus.SENT):
        raise AnchorPending("still on its way")
    return anchor.status


def _send(anchor: ChallengeAnchor, client: ChainClient) -> None:
    """Queued: adopt an identical anchor already on chain, fail on one with other terms, else send."""
    cid = anchor.challenge_id
    if not anchor.registry_address:
        anchor_failed(challenge_id=cid, error="ANCHOR_REGISTRY_ADDRESS is not set: set it, then retry the anchor.")
        return
    if not settings.ANCHOR_OPERATOR_KEY:
        anchor_failed(challenge_id=cid, error="ANCHOR_OPERATOR_KEY is not set: set it, then retry the anchor.")
        return
    registry = to_checksum_address(anchor.registry_address)
    code = client.call("eth_getCode", lambda w3: w3.eth.get_code(registry))
    if not code:
        anchor_failed(
            challenge_id=cid,
            error=f"No contract at {registry} on chain {settings.CHAIN_ID}: check ANCHOR_REGISTRY_ADDRESS.",
        )
        return
    found = anchor_find(client, registry=registry, challenge_id=cid)
    if found is not None:
        if _differences(anchor, found):
            anchor_failed(challenge_id=cid, error=_other_terms(anchor, found))
        else:
            # Ours, from an attempt whose answer was lost: adopt it rather than send again.
            logger.info("anchor of challenge %s: adopting %s already on chain", cid, found.transaction_hash)
            anchor_sent(challenge_id=cid, transaction_hash=found.transaction_hash, sender_address="", nonce=None)
        return
    account = operator_account()
    calldata = anchor_calldata(
        challenge_id=cid,
        solution_sha256=anchor.solution_sha256,
        terms_sha256=anchor.terms_sha256,
        opens_at=anchor.opens_at,
        threshold=anchor.proximity_threshold_m,
    )
    why = anchor_simulate(client, registry=registry, sender=account.address, calldata=calldata)
    if why == "OwnableUnauthorizedAccount":
        anchor_failed(
            challenge_id=cid,
            error=f"The operator key's address {account.address} is not the owner of the registry {registry}: "
            "set ANCHOR_OPERATOR_KEY to the owner's key (or move the ownership to it), then retry.",
        )
        return
    if why is not None:
        anchor_failed(challenge_id=cid, error=f"The registry refuses the anchor: {why}.")
        return
    # A re-send replaces the earlier transaction if its nonce is still unused, with higher fees.
    nonce, bump = None, 1
    if anchor.nonce is not None and anchor.sender_address == account.address:
        used = client.call("nonce", lambda w3: w3.eth.get_transaction_count(account.address, "latest"))
        if used <= anchor.nonce:
            nonce, bump = anchor.nonce, 2
    sent = anchor_transaction_send(client, registry=registry, calldata=calldata, nonce=nonce, bump=bump)
    logger.info("anchor of challenge %s sent in %s (nonce %s)", cid, sent.transaction_hash, sent.nonce)
    anchor_sent(challenge_id=cid, transaction_hash=sent.transaction_hash, sender_address=sent.sender, nonce=sent.nonce)


def _follow(anchor: ChallengeAnchor, client: ChainClient) -> None:
    """Sent: wait for the receipt and the depth, then check the log holds the challenge's values."""
    cid = anchor.challenge_id
    receipt = client.get_receipt(anchor.transaction_hash)
    if receipt is None:
        waited = timezone.now() - (anchor.sent_at or anchor.updated_at)
        if waited >= timedelta(seconds=settings.ANCHOR_RESEND_SECONDS):
            anchor_requeue(
                challenge_id=cid,
                error=f"No receipt for {anchor.transaction_hash} after {int(waited.total_seconds())} s "
                "(dropped or stuck): sending it again.",
            )
            return
        anchor_touch(challenge_id=cid)
        raise AnchorPending("not mined yet")
    registry = to_checksum_address(anchor.registry_address)
    if int(field(receipt, "status")) != 1:
        found = anchor_find(client, registry=registry, challenge_id=cid)
        if found is not None and not _differences(anchor, found):
            # Another attempt of ours got there first: that one is the anchor.
            anchor_sent(challenge_id=cid, transaction_hash=found.transaction_hash, sender_address="", nonce=None)
        elif found is not None:
            anchor_failed(challenge_id=cid, error=_other_terms(anchor, found))
        else:
            anchor_failed(
                challenge_id=cid,
                error=f"The anchor transaction {anchor.transaction_hash} reverted on chain; "
                "see it in the explorer, then retry.",
            )
        return
    block_number = int(field(receipt, "blockNumber"))
    if not is_deep_enough(client, block_number):
        anchor_touch(challenge_id=cid)
        raise AnchorPending("not deep enough yet")
    block = client.get_block(block_number)
    if block is None or to_hex(field(block, "hash")) != to_hex(field(receipt, "blockHash")):
        anchor_touch(challenge_id=cid)
        raise AnchorPending("block replaced: the node is switching chains")
    logs = [
        a
        for a in (anchor_log_decode(log) for log in field(receipt, "logs"))
        if a is not None and a.registry == registry and a.challenge_id == cid
    ]
    if not logs:
        anchor_failed(
            challenge_id=cid,
            error=f"The transaction {anchor.transaction_hash} holds no TermsAnchored log of challenge #{cid} "
            f"from the registry {registry}.",
        )
        return
    differences = _differences(anchor, logs[0])
    if differences:
        anchor_failed(
            challenge_id=cid,
            error="The anchor on chain holds other values than the challenge, which stays closed: "
            + "; ".join(differences)
            + ".",
        )
        return
    anchor_confirmed(
        challenge_id=cid,
        transaction_hash=anchor.transaction_hash,
        block_number=block_number,
        block_hash=to_hex(field(receipt, "blockHash")),
        block_timestamp=datetime.fromtimestamp(int(field(block, "timestamp")), tz=UTC),
    )
    logger.info("anchor of challenge %s confirmed in block %s", cid, block_number)


def anchor_step_noting(*, challenge_id: int, client: ChainClient | None = None) -> str:
    """anchor_advance, recording a node failure on the anchor (the admin shows it) before raising."""
    try:
        return anchor_advance(challenge_id=challenge_id, client=client)
    except ChainUnavailable as exc:
        anchor_note(challenge_id=challenge_id, error=f"No RPC node answered; retrying: {exc}")
        raise


# --- Deploying the registry (manage.py deploy_registry) ------------------------------------------

# Deploying TermsRegistry costs about 600,000 gas; the limit leaves room.
DEPLOY_GAS = 1_500_000


class RegistryDeployError(Exception):
    """The registry could not be deployed; the message says why in plain words."""


def registry_deploy(client: ChainClient, *, key: str | None = None, timeout: float = 300.0) -> str:
    """Deploy TermsRegistry owned by the operator key's address, signed and paid by that key.
    Refuses when the address cannot pay the gas. Returns the checksummed registry address."""
    import time

    account = operator_account(key)
    artifact = load_artifact("TermsRegistry")

    def fees(w3: Web3) -> tuple[int, int, int]:
        base_fee = int(w3.eth.get_block("latest").get("baseFeePerGas") or 0)
        tip = max(int(w3.eth.max_priority_fee), 10**9)
        return w3.eth.get_balance(account.address), 2 * base_fee + tip, tip

    balance, max_fee, tip = client.call("balance and fees", fees)
    if balance < DEPLOY_GAS * max_fee:
        raise RegistryDeployError(
            f"The operator key's address {account.address} has no gas: it holds {Web3.from_wei(balance, 'ether')} ETH "
            f"and the deployment may cost up to {Web3.from_wei(DEPLOY_GAS * max_fee, 'ether')} ETH. Send it a little "
            "ETH (a Sepolia faucet), never USDC, and run this again."
        )
    data = (
        client.w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
        .constructor(account.address)
        .data_in_transaction
    )

    def send(w3: Web3) -> str:
        tx = {
            "type": 2,
            "chainId": w3.eth.chain_id,
            "nonce": w3.eth.get_transaction_count(account.address, "pending"),
            "value": 0,
            "data": data,
            "gas": DEPLOY_GAS,
            "maxPriorityFeePerGas": tip,
            "maxFeePerGas": max_fee,
        }
        return to_hex(w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction))

    tx_hash = client.call("deploy registry", send)
    deadline = time.monotonic() + timeout
    while (receipt := client.get_receipt(tx_hash)) is None:
        if time.monotonic() > deadline:
            raise RegistryDeployError(f"The deployment {tx_hash} was not mined within {timeout:.0f} s; look it up.")
        time.sleep(1)
    if int(field(receipt, "status")) != 1:
        raise RegistryDeployError(f"The deployment {tx_hash} reverted.")
    registry = to_checksum_address(field(receipt, "contractAddress"))
    abi = artifact["abi"]
    owner = client.call("owner", lambda w3: w3.eth.contract(address=registry, abi=abi).functions.owner().call())
    if owner != account.address:
        raise RegistryDeployError(f"The registry at {registry} is owned by {owner}, not {account.address}.")
    return registry
