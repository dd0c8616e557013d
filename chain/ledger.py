"""The payment ledger's writes (chain/models.py, Payment): every USDC Transfer to the treasury,
linked to the claim of its payer. Written by verification when it confirms or rejects a claim
(chain/verification.py), by the indexer for every transfer it reads (chain/indexer.py) and by the
reorg re-check when a block leaves the chain (chain/reorgs.py), each in the caller's transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Q

from responses.models import PaymentMethod, Response, ResponseStatus
from responses.reasons import NOT_THE_PAYERS_CLAIM

from .calldata import DecodedTransfer
from .models import Payment
from .transfers import Transfer

# A relayed stake's row (docs/protocol.md section 2a): the authorization's nonce as its commitment,
# and no timestamp word, which a direct stake's 164 bytes always carry (payment_upsert). Its payer's
# claim is the authorization claim with that commitment, not a claim naming its transaction's hash.
RELAYED_PAYMENT = Q(timestamp_word__isnull=True) & ~Q(commitment="")


@dataclass(frozen=True)
class RelayedWords:
    """What a relayed stake's ledger row records: the authorization's nonce, which is the payer's
    guess commitment, and the challenge id after the call's nine words (None when the call carries
    none, or when the authorization was used by a contract whose calldata is not the token's call:
    the row then names no challenge)."""

    commitment: str
    challenge_id: int | None


def payment_upsert(
    transfer: Transfer,
    *,
    block_number: int,
    block_hash: str,
    transaction_index: int,
    block_time: datetime | None,
    decoded_input: DecodedTransfer | RelayedWords | None,
    response: Response | None,
) -> Payment:
    """The ledger row of one transfer (by transaction hash and log index), created or moved to
    where the chain now holds it. None leaves a stored value as it is (time, calldata, claim)."""
    defaults: dict[str, object] = {
        "block_number": block_number,
        "block_hash": block_hash,
        "transaction_index": transaction_index,
        "from_address": transfer.from_,
        "to_address": transfer.to,
        "amount_units": Decimal(transfer.amount_units),
        "removed": False,
    }
    if block_time is not None:
        defaults["block_timestamp"] = block_time
    if isinstance(decoded_input, RelayedWords):
        defaults["commitment"] = decoded_input.commitment.lower()
        challenge = decoded_input.challenge_id
        defaults["challenge_id_word"] = None if challenge is None else Decimal(challenge)
        defaults["timestamp_word"] = None
    elif decoded_input is not None and decoded_input.commitment is not None:
        defaults["commitment"] = decoded_input.commitment
        defaults["challenge_id_word"] = Decimal(decoded_input.challenge_id or 0)
        defaults["timestamp_word"] = Decimal(decoded_input.timestamp or 0)
    if response is not None:
        defaults["response"] = response
    payment, _ = Payment.objects.update_or_create(
        transaction_hash=transfer.transaction_hash, log_index=transfer.log_index, defaults=defaults
    )
    return payment


def payments_link_rejected_claim(*, response: Response, code: str) -> None:
    """A rejected claim that may be its payer's (not a stranger's: chain/selectors.py, payer_claims)
    takes the payment rows of its hash that no claim holds yet."""
    if code in NOT_THE_PAYERS_CLAIM:
        return
    # A relayed stake on the same hash is its authorization's payer's (payment_claim), never this one's.
    Payment.objects.filter(transaction_hash=response.transaction_hash, response__isnull=True).exclude(
        RELAYED_PAYMENT
    ).update(response=response)


def payments_mark_removed(*, transaction_hash: str, block_hash: str) -> int:
    """The payment rows of a transaction in a block that left the canonical chain."""
    return Payment.objects.filter(transaction_hash=transaction_hash, block_hash=block_hash).update(removed=True)


def payment_claim(*, transaction_hash: str, commitment: str) -> Response | None:
    """The claim a ledger row of a direct transfer links to: the one carrying the commitment the
    calldata holds (the confirmed claim, when there is one). Several claims can name one hash; a
    stranger's never carries the payment's commitment, so it is never linked."""
    claims = Response.objects.filter(transaction_hash=transaction_hash, payment_method=PaymentMethod.TRANSFER)
    confirmed = claims.filter(status=ResponseStatus.CONFIRMED).first()
    if confirmed is not None or not commitment:
        return confirmed
    return claims.filter(commitment=commitment).first()


def authorization_claim(*, payer: str, commitment: str) -> Response | None:
    """The claim a relayed stake's ledger row links to: the claim paid by the authorization of
    `payer` whose nonce is `commitment` (one at most: responses/models.py). Only the payer's
    signature makes such a claim, so a stranger's claim is never linked."""
    return Response.objects.filter(
        payment_method=PaymentMethod.AUTHORIZATION, commitment=commitment.lower(), submitter_address__iexact=payer
    ).first()
