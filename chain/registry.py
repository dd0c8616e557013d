"""The terms registry on chain (contracts/TermsRegistry.sol; docs/protocol.md section 6): reading its
TermsAnchored logs and its own answer, building and sending `anchor(...)` signed with the operator
key, and deploying it (manage.py deploy_registry). The worker's step that moves a challenge's
anchor through these is chain/anchors.py.

The key signs locally (eth-account) and the raw transaction goes through the configured RPC nodes,
so the same code works on anvil and on Sepolia; no node ever holds the key."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_account.types import TransactionDictType
from eth_typing import HexStr
from eth_utils import keccak, to_checksum_address
from web3 import Web3
from web3.exceptions import ContractCustomError, ContractLogicError

from .client import ChainClient
from .contracts import load_artifact
from .rpc import Log
from .transfers import to_bytes, to_hex

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

    def values(self) -> dict[str, str | int]:
        return {
            "solution_sha256": self.solution_sha256,
            "terms_sha256": self.terms_sha256,
            "opens_at": self.opens_at,
            "proximity_threshold_m": self.proximity_threshold_m,
        }


def anchor_log_decode(log: Log) -> AnchorLog | None:
    """The TermsAnchored a log records (topic 0, the id as topic 1, four data words), or None."""
    topics = [to_bytes(t) for t in log["topics"]]
    data = to_bytes(log["data"])
    if len(topics) != 2 or "0x" + topics[0].hex() != TERMS_ANCHORED_TOPIC or len(data) != 128:
        return None
    words = [data[i : i + 32] for i in range(0, 128, 32)]
    return AnchorLog(
        registry=to_checksum_address(log["address"]),
        challenge_id=int.from_bytes(topics[1], "big"),
        solution_sha256=words[0].hex(),
        terms_sha256=words[1].hex(),
        opens_at=int.from_bytes(words[2], "big"),
        proximity_threshold_m=int.from_bytes(words[3], "big"),
        transaction_hash=to_hex(log["transactionHash"]),
        block_number=int(log["blockNumber"]),
        block_hash=to_hex(log["blockHash"]),
        log_index=int(log["logIndex"]),
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


def operator_account(key: str | None = None) -> LocalAccount:
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
            w3.eth.call({"from": sender, "to": registry, "data": HexStr(calldata), "gas": ANCHOR_GAS})
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
        tx: TransactionDictType = {
            "type": 2,
            "chainId": w3.eth.chain_id,
            "nonce": use_nonce,
            "to": to_checksum_address(registry),
            "value": 0,
            "data": HexStr(calldata),
            "gas": ANCHOR_GAS,
            "maxPriorityFeePerGas": tip * bump,
            "maxFeePerGas": (2 * base_fee + tip) * bump,
        }
        signed = account.sign_transaction(tx)
        tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
        return Sent(transaction_hash=to_hex(tx_hash), sender=account.address, nonce=use_nonce)

    return client.call("send anchor", send)


# --- Deploying the registry (manage.py deploy_registry) ------------------------------------------

# Deploying TermsRegistry costs about 600,000 gas; the limit leaves room.
DEPLOY_GAS = 1_500_000


class RegistryDeployError(Exception):
    """The registry could not be deployed; the message says why in plain words."""


def registry_deploy(client: ChainClient, *, key: str | None = None, timeout: float = 300.0) -> str:
    """Deploy TermsRegistry owned by the operator key's address, signed and paid by that key.
    Refuses when the address cannot pay the gas. Returns the checksummed registry address."""
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
    if int(receipt["status"]) != 1:
        raise RegistryDeployError(f"The deployment {tx_hash} reverted.")
    registry = to_checksum_address(str(receipt["contractAddress"]))
    abi = artifact["abi"]
    owner = client.call("owner", lambda w3: w3.eth.contract(address=registry, abi=abi).functions.owner().call())
    if owner != account.address:
        raise RegistryDeployError(f"The registry at {registry} is owned by {owner}, not {account.address}.")
    return registry
