"""What Geopoem's relayer tells a player about a signed stake (docs/protocol.md 3.4: `relayCode` and
`relayReason`): why it was refused (the player may send it themselves) or why it was not sent. Short,
plain sentences; a refusal ends with what the player can do."""

from __future__ import annotations

from dataclasses import dataclass

from responses.models import RelayStatus

SEND_IT_YOURSELF = "send this stake yourself from your wallet (it needs a little ETH for gas)."
SWITCHED_OFF = "Geopoem's relay is switched off; " + SEND_IT_YOURSELF
ADDRESS_LIMIT = (
    "This wallet has had {count} relayed in the last 24 hours, the most Geopoem's relay sends for one "
    "wallet; " + SEND_IT_YOURSELF
)
# RELAY_MAX_PER_ADDRESS_PER_DAY 0: the relay sends for no wallet ("0 stakes, the most" read as nonsense).
NO_WALLET_LIMIT = "Geopoem's relay is not sending stakes for any wallet right now; " + SEND_IT_YOURSELF
DAILY_BUDGET = "Geopoem's relay has spent its gas budget for the last 24 hours; " + SEND_IT_YOURSELF
NO_FUNDS = "Geopoem's relay is short of gas money right now; " + SEND_IT_YOURSELF


@dataclass(frozen=True)
class Outcome:
    """Where a signed stake's relay ends when it is not (or no longer) worth sending."""

    status: str  # a RelayStatus value
    reason: str  # the sentence the player reads
    code: str = ""  # its relayCode: what a page decides on, not the words


_OUTCOMES: dict[str, Outcome] = {
    "used": Outcome(
        RelayStatus.NOT_NEEDED,
        "This stake was already sent to the pot by someone else, so Geopoem's relay did not need to send it.",
    ),
    "expired": Outcome(
        RelayStatus.FAILED,
        "The payment authorization expired, or was about to, before Geopoem's relay could send it, so no USDC "
        "was transferred.",
    ),
    "closed": Outcome(
        RelayStatus.FAILED,
        "The challenge closed before Geopoem's relay could send the stake, so no USDC was transferred.",
    ),
    "reverted": Outcome(
        RelayStatus.FAILED, "The pot refused the stake when Geopoem's relay sent it, so no USDC was transferred."
    ),
    # The nonce went to a transaction the relayer has no record of (its key used elsewhere).
    "lost": Outcome(
        RelayStatus.FAILED,
        "Geopoem's relay could not get this stake mined, so no USDC was transferred; " + SEND_IT_YOURSELF,
    ),
    "switched_off": Outcome(RelayStatus.REFUSED, SWITCHED_OFF),
    "budget": Outcome(RelayStatus.REFUSED, DAILY_BUDGET),
    "funds": Outcome(RelayStatus.REFUSED, NO_FUNDS),
}

OUTCOMES: dict[str, Outcome] = {
    code: Outcome(status=outcome.status, reason=outcome.reason, code=code) for code, outcome in _OUTCOMES.items()
}


def failed(code: str, sentence: str) -> Outcome:
    """The stake was not sent because the pot or the token refuses it (chain/pot/errors.py)."""
    return Outcome(status=RelayStatus.FAILED, reason=sentence, code=code)


def address_limit_sentence(limit: int) -> str:
    if limit <= 0:
        return NO_WALLET_LIMIT
    return ADDRESS_LIMIT.format(count="1 stake" if limit == 1 else f"{limit} stakes")


def address_limit_outcome(limit: int) -> Outcome:
    return Outcome(status=RelayStatus.REFUSED, reason=address_limit_sentence(limit), code="address_limit")
