"""The relayer's transactions, signed locally with RELAYER_KEY (eth-account; no node ever holds the
key), as chain/registry.py signs the anchors: a stake (the player's authorization, docs/protocol.md
section 2a's 324 bytes, to the USDC contract, value 0) and a nonce filler (0 ETH to itself, which
takes the nonce of a stuck stake that must no longer be mined)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.utils import timezone
from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_account.types import TransactionDictType
from eth_typing import HexStr
from eth_utils import keccak, to_checksum_address

from .relay_rpc import Fees

# The gas limit of a relayed stake. Measured from the receipts on anvil against contracts/TestUSDC.sol
# (Circle's FiatToken v2.2 checks and storage): at most 86,225 gas for a stake that gives the treasury
# its first USDC (a zero balance slot written), about 69,100 for the others
# (chain/tests/test_relayer_send.py prints them). Circle's USDC behind its proxy reads a few more cold slots (the
# implementation's address, the pause flag) and makes a delegatecall: an estimate of 7,000 to 10,000
# more, not a measurement. A fixed limit, as chain/registry.py's ANCHOR_GAS, so that a stake that
# would revert on chain is still sent and its receipt says so, rather than failing to estimate; the
# limit is also what the admission and the daily budget reserve per stake in flight (gas x
# maxFeePerGas), so it stays close to the use: 120,000 is 39 % above the heaviest measured case.
RELAY_GAS = 120_000
# A plain transfer of ETH costs exactly 21,000 gas.
FILLER_GAS = 21_000

STAKE = "stake"
FILLER = "filler"


@lru_cache(maxsize=4)
def _account(key: str) -> LocalAccount:
    return Account.from_key(key)


def relayer_account() -> LocalAccount:
    """The relayer's local account, from RELAYER_KEY (a 0x private key)."""
    return _account(settings.RELAYER_KEY)


@dataclass(frozen=True)
class Attempt:
    """One signed transaction for a nonce, as RelayTransaction.attempts keeps it."""

    hash: str
    raw: str
    kind: str
    nonce: int
    gas: int
    fees: Fees

    def record(self) -> dict[str, str | int]:
        return {
            "hash": self.hash,
            "raw": self.raw,
            "kind": self.kind,
            "maxFeePerGas": str(self.fees.max_fee),
            "maxPriorityFeePerGas": str(self.fees.tip),
            "at": timezone.now().isoformat(),
        }


def _sign(account: LocalAccount, *, kind: str, nonce: int, to: str, data: str, gas: int, fees: Fees) -> Attempt:
    tx: TransactionDictType = {
        "type": 2,
        "chainId": settings.CHAIN_ID,
        "nonce": nonce,
        "to": to_checksum_address(to),
        "value": 0,
        "data": HexStr(data),
        "gas": gas,
        "maxFeePerGas": fees.max_fee,
        "maxPriorityFeePerGas": fees.tip,
    }
    signed = account.sign_transaction(tx)
    raw = bytes(signed.raw_transaction)
    return Attempt(hash="0x" + keccak(raw).hex(), raw="0x" + raw.hex(), kind=kind, nonce=nonce, gas=gas, fees=fees)


def sign_stake(account: LocalAccount, *, nonce: int, data: str, fees: Fees) -> Attempt:
    """The relayed stake: `data` (the 324 bytes of chain/authorization.py, encode_relayed_stake) to
    the USDC contract, value 0, RELAY_GAS."""
    return _sign(account, kind=STAKE, nonce=nonce, to=settings.USDC_ADDRESS, data=data, gas=RELAY_GAS, fees=fees)


def sign_filler(account: LocalAccount, *, nonce: int, fees: Fees) -> Attempt:
    """0 ETH from the relayer to itself under `nonce`: it frees the nonce of a stuck stake."""
    return _sign(account, kind=FILLER, nonce=nonce, to=account.address, data="0x", gas=FILLER_GAS, fees=fees)
