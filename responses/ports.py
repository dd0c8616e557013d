"""What the responses app needs of the chain, as one typed interface (docs/architecture.md, "Where
data flows upward: one port per app"). responses sits below chain and never imports it: chain/apps.py installs the
chain's adapter when Django starts (chain/pot/port.py). The null port answers until then, with what
a site without a chain would say: every signature unchecked, the relay switched off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .models import SignedStake


@dataclass(frozen=True)
class SignedStakeRequest:
    """A stake a player signed for the relayer (docs/protocol.md 3.1), as the POST parsed it."""

    challenge_id: int
    payer: str  # lowercase 0x address
    amount_units: int
    commitment: str  # lowercase hex, no 0x
    valid_after: int
    valid_before: int
    signature: str  # 0x r ‖ s ‖ v, lowercase


@dataclass(frozen=True)
class SignedStakeCheck:
    """What the chain's check of a signed stake said. No refusal: store it."""

    nonce: str = ""  # the stake nonce the signature was checked against, lowercase hex
    refusal_code: str = ""
    refusal_sentence: str = ""
    unsupported: bool = False  # the token takes no authorizations: 409
    unavailable: bool = False  # the token's domain could not be read now: 503


@dataclass(frozen=True)
class RelayAdmission:
    status: str  # "queued" or "refused"
    code: str = ""
    reason: str = ""


class ChainPort(Protocol):
    def check_signed_stake(self, request: SignedStakeRequest, *, terms_digest: str) -> SignedStakeCheck:
        """The signature, its window and the chain's answer to a simulation (docs/protocol.md 3.1).
        `terms_digest`: the challenge's, as the pot's events gave it (the nonce binds it)."""

    def relay_admit(self, *, payer: str) -> RelayAdmission:
        """Whether the relayer will send a new signed stake of `payer`, or why not."""

    def signed_stake_stored(self, *, signed_stake: SignedStake) -> None:
        """A signed stake was stored (inside the POST's transaction): queue its call for the relayer."""


class NullChainPort:
    def check_signed_stake(self, request: SignedStakeRequest, *, terms_digest: str) -> SignedStakeCheck:
        return SignedStakeCheck()

    def relay_admit(self, *, payer: str) -> RelayAdmission:
        return RelayAdmission(status="refused", code="switched_off", reason="Geopoem's relay is switched off.")

    def signed_stake_stored(self, *, signed_stake: SignedStake) -> None:
        return None


_port: ChainPort = NullChainPort()


def chain_port() -> ChainPort:
    return _port


def install_chain_port(port: ChainPort) -> None:
    global _port
    _port = port
