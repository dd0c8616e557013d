"""What Geopoem's relayer tells a player about their authorization (docs/protocol.md 3.3a: the
claim's `relayReason`): why it was refused (the player may send it themselves) or why it was not
sent. Short, plain sentences; a refusal ends with what the player can do."""

from __future__ import annotations

from dataclasses import dataclass

from responses.hooks import RELAY_SWITCHED_OFF
from responses.models import RelayStatus

SEND_IT_YOURSELF = "send this payment yourself from your wallet (it needs a little ETH for gas)."

# Refused (relayStatus `refused`): at the POST (chain/relay_admission.py) or when the relayer comes
# to the claim (chain/relayer.py). RELAY_SWITCHED_OFF (responses/hooks.py) is the first of them.
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
    """Where a claim's relay ends when its authorization is not (or no longer) worth sending."""

    status: str  # a RelayStatus value
    reason: str  # the sentence the player reads
    code: str = ""  # the claim's relayCode (docs/protocol.md 3.3a): what a page decides on, not the words


# By code: the re-checks before a send (chain/relayer.py), and the reason a stuck stake was
# replaced by a nonce filler (chain/relay_watch.py, RelayTransaction.replaced_because).
_OUTCOMES: dict[str, Outcome] = {
    "used": Outcome(
        RelayStatus.NOT_NEEDED,
        "This payment authorization was already used on chain, so Geopoem's relay did not need to send it.",
    ),
    "cancelled": Outcome(
        RelayStatus.FAILED,
        "The payment authorization was cancelled, so Geopoem's relay did not send it and no USDC was transferred.",
    ),
    "expired": Outcome(
        RelayStatus.FAILED,
        "The payment authorization expired, or was about to, before Geopoem's relay could send it, so no USDC "
        "was transferred.",
    ),
    "closed": Outcome(
        RelayStatus.FAILED,
        "The challenge closed before Geopoem's relay could send the payment, so no USDC was transferred.",
    ),
    "balance": Outcome(
        RelayStatus.FAILED,
        "This wallet no longer holds enough USDC for the stake, so Geopoem's relay did not send it and no USDC "
        "was transferred.",
    ),
    "refused_by_token": Outcome(
        RelayStatus.FAILED,
        "The token would not accept this payment authorization, so Geopoem's relay did not send it and no USDC "
        "was transferred.",
    ),
    "reverted": Outcome(
        RelayStatus.FAILED,
        "The token refused the payment when Geopoem's relay sent it, so no USDC was transferred.",
    ),
    # The nonce went to a transaction the relayer has no record of (its key used elsewhere).
    "lost": Outcome(
        RelayStatus.FAILED,
        "Geopoem's relay could not get this payment mined, so no USDC was transferred; " + SEND_IT_YOURSELF,
    ),
    # Refusals by the relayer itself, reached when it comes to a queued claim.
    "switched_off": Outcome(RelayStatus.REFUSED, RELAY_SWITCHED_OFF),
    "budget": Outcome(RelayStatus.REFUSED, DAILY_BUDGET),
    "funds": Outcome(RelayStatus.REFUSED, NO_FUNDS),
}


OUTCOMES: dict[str, Outcome] = {
    code: Outcome(status=outcome.status, reason=outcome.reason, code=code) for code, outcome in _OUTCOMES.items()
}
# The relay's refusals and failures after which the player's own transaction would still count (the
# page offers "Send it yourself" on them, docs/protocol.md 3.3a); after the others (used, cancelled,
# expired, the challenge closed, the USDC gone, refused by the token) it would not.
SEND_IT_YOURSELF_CODES = ("switched_off", "address_limit", "budget", "funds", "lost")


def address_limit_sentence(limit: int) -> str:
    if limit <= 0:
        return NO_WALLET_LIMIT
    return ADDRESS_LIMIT.format(count="1 stake" if limit == 1 else f"{limit} stakes")


def address_limit_outcome(limit: int) -> Outcome:
    return Outcome(status=RelayStatus.REFUSED, reason=address_limit_sentence(limit), code="address_limit")
