"""Writes to responses: storing a player's claim. A claim starts `pending`; only the chain
verification (chain app) moves it to `confirmed` or `rejected`.

A stake's hash is public (in the mempool before it is mined), so anyone can post a claim on it.
Any number of claims may wait on one hash; only the one whose commitment the calldata carries can
confirm (docs/protocol.md, section 3). A claim the chain already shows cannot match is refused at
once and nothing is stored: posting first gains a stranger nothing."""

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction

from challenges.commitments import guess_commitment
from challenges.models import Challenge, ChallengeStatus

from .coordinates import parse_coordinates
from .models import Response, ResponseStatus

if TYPE_CHECKING:
    from chain.client import ChainClient


class ChallengeNotFound(Exception):
    pass


class ChallengeNotOpen(Exception):
    pass


class TransactionAlreadyUsed(Exception):
    pass


class ClaimCannotMatch(Exception):
    """The transaction, read at POST time, shows the claim can never be confirmed."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class ClaimResult:
    response: Response
    created: bool


def _enqueue_verification(response_id: int) -> None:
    from chain.tasks import verify_response

    try:
        verify_response.delay(response_id)
    except Exception:  # noqa: BLE001 - the broker being down must not lose the claim
        # The claim is committed; the sweeper re-queues stale pending claims once the broker is back.
        import logging

        logging.getLogger(__name__).warning("could not enqueue verification of response %s", response_id)


def response_create(
    *,
    challenge_id: int,
    submission_text: str,
    submission_stake: Decimal,
    transaction_hash: str,
    submitter_address: str,
    submission_salt: str,
    client: "ChainClient | None" = None,
) -> ClaimResult:
    """Store a pending claim and queue its verification once the row is committed.

    One row per (transaction hash, commitment): re-posting the very same claim (a retry after a
    lost answer) returns the stored one. Another claim on a hash that already has a confirmed claim
    is refused. Otherwise the transaction is read (bounded: chain.services.post_check_client) and a
    claim it shows cannot match is refused with the reason code; when the chain cannot be read the
    claim is stored pending, so a paying player's claim is never lost to an RPC outage."""
    from chain.services import claim_check_at_post, post_check_client

    coordinates = parse_coordinates(submission_text)
    transaction_hash = transaction_hash.lower()
    challenge = Challenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeNotFound
    commitment = guess_commitment(
        chain_id=settings.CHAIN_ID,
        challenge_id=challenge.pk,
        submitter_address=submitter_address,
        text=coordinates.text,
        salt=submission_salt,
    )
    claim = (challenge_id, coordinates.text, submission_stake, submitter_address, submission_salt)
    existing = Response.objects.filter(transaction_hash=transaction_hash, commitment=commitment).first()
    if existing is not None:
        return _replay_or_refuse(existing, *claim)
    if Response.objects.filter(transaction_hash=transaction_hash, status=ResponseStatus.CONFIRMED).exists():
        raise TransactionAlreadyUsed
    if challenge.status != ChallengeStatus.ACTIVE:
        raise ChallengeNotOpen
    code = claim_check_at_post(
        transaction_hash=transaction_hash,
        submitter_address=submitter_address,
        commitment=commitment,
        challenge_id=challenge.pk,
        client=client or post_check_client(),
    )
    if code is not None:
        raise ClaimCannotMatch(code)
    try:
        with transaction.atomic():
            response = Response.objects.create(
                challenge=challenge,
                submission_text=coordinates.text,
                submission_lat=coordinates.lat,
                submission_lon=coordinates.lon,
                submission_salt=submission_salt,
                commitment=commitment,
                submission_stake=submission_stake,
                transaction_hash=transaction_hash,
                submitter_address=submitter_address,
            )
            transaction.on_commit(lambda: _enqueue_verification(response.pk))
    except IntegrityError:
        # The same guess posted at the same moment by another request: one row, the others replay.
        existing = Response.objects.filter(transaction_hash=transaction_hash, commitment=commitment).first()
        if existing is None:
            raise
        return _replay_or_refuse(existing, *claim)
    return ClaimResult(response=response, created=True)


def _replay_or_refuse(
    existing: Response, challenge_id: int, text: str, stake: Decimal, address: str, salt: str
) -> ClaimResult:
    same = (
        existing.challenge_id == challenge_id
        and existing.submission_text == text
        and existing.submission_stake == stake
        and existing.submitter_address == address
        and existing.submission_salt == salt
    )
    if not same:
        raise TransactionAlreadyUsed
    return ClaimResult(response=existing, created=False)
