"""The relayer's transactions, signed locally with RELAYER_KEY (no node ever holds the key): a call of
the pot, and a nonce filler (0 ETH to itself, which takes the nonce of a stuck stake that must no
longer be mined)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.utils import timezone
from eth_account import Account
from eth_account.signers.local import LocalAccount

from ..node.sending import Fees, sign

# A plain transfer of ETH costs exactly 21,000 gas.
FILLER_GAS = 21_000

CALL = "call"
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


def sign_call(account: LocalAccount, *, nonce: int, data: str, gas: int, fees: Fees) -> Attempt:
    """A call of the pot: `data` to POT_ADDRESS, value 0, a fixed gas limit (chain/relayer/outbox.py)."""
    signed = sign(account, nonce=nonce, to=settings.POT_ADDRESS, data=data, gas=gas, fees=fees)
    return Attempt(hash=signed.hash, raw=signed.raw, kind=CALL, nonce=nonce, gas=gas, fees=fees)


def sign_filler(account: LocalAccount, *, nonce: int, fees: Fees) -> Attempt:
    """0 ETH from the relayer to itself under `nonce`: it frees the nonce of a stuck stake."""
    signed = sign(account, nonce=nonce, to=account.address, data="0x", gas=FILLER_GAS, fees=fees)
    return Attempt(hash=signed.hash, raw=signed.raw, kind=FILLER, nonce=nonce, gas=FILLER_GAS, fees=fees)
