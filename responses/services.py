"""Writes to responses: a claim's life. A claim starts `pending` (response_create); the chain
verification (chain/verification.py) reads the chain, decides, and moves it with response_confirm,
response_reject or response_unconfirm, which move the challenge's sums in the same transaction.

A stake's hash is public (in the mempool before it is mined), so anyone can post a claim on it.
Any number of claims may wait on one hash; only the one whose commitment the calldata carries can
confirm (docs/protocol.md, section 3). A claim the chain already shows cannot match is refused at
once and nothing is stored: posting first gains a stranger nothing."""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from challenges.commitments import guess_commitment_v1, new_salt
from challenges.coordinates import parse_coordinates
from challenges.models import Challenge
from challenges.selectors import challenge_accepts_claims
from challenges.services import challenge_stake_moved

from . import barrier, hooks
from .exceptions import exception_record
from .models import ExceptionKind, PaymentMethod, Response, ResponseStatus
from .reasons import REASON_SENTENCES, Reason
from .reopening import response_reopen_on_repost

logger = logging.getLogger(__name__)


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
    hooks.queue_verification(response_id)


def guess_fields(*, challenge_id: int, text: str, submitter_address: str, salt: str | None = None) -> dict:
    """The guess columns of a Response row: the canonical text and its coordinates (raises
    CoordinateError), the salt (a fresh one when None) and the commitment the payment carries
    (docs/protocol.md, section 1). The one way a row is built: response_create, the demo
    (responses/demo.py), the tests (conftest.py) and the benchmarks (bench/data.py) all call it."""
    coordinates = parse_coordinates(text)
    salt = new_salt() if salt is None else salt
    return {
        "submission_text": coordinates.text,
        "submission_lat": coordinates.lat,
        "submission_lon": coordinates.lon,
        "submission_salt": salt,
        "commitment": guess_commitment_v1(
            chain_id=settings.CHAIN_ID,
            challenge_id=challenge_id,
            submitter_address=submitter_address,
            text=coordinates.text,
            salt=salt,
        ),
    }


@dataclass(frozen=True)
class Guess:
    """A posted claim's guess, before its payment is looked at: the challenge (which exists), the
    row's guess columns (guess_fields, with the commitment) and what a replay must match."""

    challenge: Challenge
    fields: dict
    stake: Decimal
    address: str
    salt: str

    @property
    def commitment(self) -> str:
        return self.fields["commitment"]

    def same_as(self, existing: Response) -> bool:
        """The stored claim is this very claim (a retry after a lost answer), as far as the guess goes."""
        return (
            existing.challenge_id == self.challenge.pk
            and existing.submission_text == self.fields["submission_text"]
            and existing.submission_stake == self.stake
            and existing.submitter_address == self.address
            and existing.submission_salt == self.salt
        )


def claim_guess(
    *, challenge_id: int, submission_text: str, submission_stake: Decimal, submitter_address: str, submission_salt: str
) -> Guess:
    """The guess of a claim about to be stored, however it is paid; raises ChallengeNotFound."""
    challenge = Challenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeNotFound
    fields = guess_fields(
        challenge_id=challenge.pk, text=submission_text, submitter_address=submitter_address, salt=submission_salt
    )
    return Guess(challenge, fields, submission_stake, submitter_address, submission_salt)


def claim_accepted(guess: Guess) -> None:
    """Raise ChallengeNotOpen unless the challenge takes new claims: open now, or closed or resolved
    after it was open (a payment mined in the window may still count until resolution starts, and
    one claimed later is recorded: responses/barrier.py)."""
    if not challenge_accepts_claims(challenge_id=guess.challenge.pk):
        raise ChallengeNotOpen


def claim_insert(
    guess: Guess,
    *,
    insert: Callable[[], Response],
    announce: Callable[[int], None],
    replay: Callable[[], ClaimResult | None],
) -> ClaimResult:
    """Store a new claim: `insert` writes its rows in one transaction that holds off a resolution
    start (responses/barrier.py), and `announce` runs with its id once committed (its verification,
    its relay). A unique constraint violated meanwhile (the same claim posted at the same moment by
    another request) ends in `replay`: the stored claim, or None when there is none to replay."""
    try:
        with transaction.atomic():
            barrier.claim_insert_lock(challenge_id=guess.challenge.pk)
            response = insert()
            transaction.on_commit(lambda: announce(response.pk))
    except IntegrityError:
        replayed = replay()
        if replayed is None:
            raise
        return replayed
    return ClaimResult(response=response, created=True)


def response_create(
    *,
    challenge_id: int,
    submission_text: str,
    submission_stake: Decimal,
    transaction_hash: str,
    submitter_address: str,
    submission_salt: str,
    client: object | None = None,
) -> ClaimResult:
    """Store a pending claim and queue its verification once the row is committed.

    One row per (transaction hash, commitment): re-posting the very same claim (a retry after a
    lost answer) returns the stored one, re-opened when it was rejected not_found or reorged and its
    transaction is now mined (responses/reopening.py). Another claim on a hash that already has a confirmed claim
    is refused. Otherwise the transaction is read (bounded: chain/checks.py, claim_check_at_post,
    through responses/hooks.py; `client` is the chain client it reads with, None for the default)
    and a claim it shows cannot match is refused with the reason code; when the chain cannot be read
    the claim is stored pending, so a paying player's claim is never lost to an RPC outage.
    A claim paid by a signed authorization instead: responses/authorizations.py."""
    transaction_hash = transaction_hash.lower()
    guess = claim_guess(
        challenge_id=challenge_id,
        submission_text=submission_text,
        submission_stake=submission_stake,
        submitter_address=submitter_address,
        submission_salt=submission_salt,
    )

    def stored() -> Response | None:
        return Response.objects.filter(
            transaction_hash=transaction_hash, commitment=guess.commitment, payment_method=PaymentMethod.TRANSFER
        ).first()

    existing = stored()
    if existing is not None:
        return _replay_or_refuse(existing, guess, client=client)
    if Response.objects.filter(transaction_hash=transaction_hash, status=ResponseStatus.CONFIRMED).exists():
        raise TransactionAlreadyUsed
    claim_accepted(guess)
    read = hooks.claim_check(
        transaction_hash=transaction_hash,
        submitter_address=submitter_address,
        commitment=guess.commitment,
        challenge_id=guess.challenge.pk,
        client=client,
    )
    if read.code is not None:
        raise ClaimCannotMatch(read.code)

    def insert() -> Response:
        return Response.objects.create(
            challenge=guess.challenge,
            **guess.fields,
            submission_stake=submission_stake,
            transaction_hash=transaction_hash,
            submitter_address=submitter_address,
            sent_by_submitter=read.sent_by_submitter,
            sender_nonce=read.nonce,
        )

    def replay() -> ClaimResult | None:
        existing = stored()
        return None if existing is None else _replay_or_refuse(existing, guess, client=client)

    return claim_insert(guess, insert=insert, announce=_enqueue_verification, replay=replay)


def _replay_or_refuse(existing: Response, guess: Guess, *, client: object | None) -> ClaimResult:
    if not guess.same_as(existing):
        raise TransactionAlreadyUsed
    # A claim rejected not_found or reorged whose transaction is mined after all is verified again.
    return ClaimResult(response=response_reopen_on_repost(existing, client=client), created=False)


# --- Status changes: the chain decides (chain/verification.py), these write ---------------------
# Each is one conditional UPDATE on the current status, so two workers deciding the same claim at
# once cannot count its stake twice: exactly one UPDATE matches, and only that one moves the
# challenge's staked sum and response count (challenges/services.py, challenge_stake_moved). Once
# the challenge's resolution has started none of them moves the sums (responses/barrier.py).


def response_confirm(
    *,
    response: Response,
    submission_timestamp,
    block_number: int,
    block_hash: str,
    transaction_index: int,
    log_index: int,
) -> bool:
    """A pending claim to confirmed at its place on chain; True when this call moved it. After the
    challenge's resolution started it is rejected `after_resolution` instead and an exception is
    recorded for staff (False): the sums the prizes were computed from stay as they are."""
    with transaction.atomic():
        if barrier.resolution_started_locked(challenge_id=response.challenge_id):
            if response_reject(response=response, code=Reason.AFTER_RESOLUTION):
                exception_record(response=response, kind=ExceptionKind.AFTER_RESOLUTION)
            return False
        changed = Response.objects.filter(pk=response.pk, status=ResponseStatus.PENDING).update(
            status=ResponseStatus.CONFIRMED,
            submission_timestamp=submission_timestamp,
            block_number=block_number,
            block_hash=block_hash,
            transaction_index=transaction_index,
            log_index=log_index,
            rejection_code="",
            rejection_reason="",
            reorged_at=None,
            updated_at=timezone.now(),
        )
        if changed:
            challenge_stake_moved(challenge_id=response.challenge_id, stake=response.submission_stake, count=1)
    return bool(changed)


def response_reject(*, response: Response, code: str) -> bool:
    """A pending claim to rejected with its reason code and sentence; True when this call moved it."""
    changed = Response.objects.filter(pk=response.pk, status=ResponseStatus.PENDING).update(
        status=ResponseStatus.REJECTED,
        rejection_code=code,
        rejection_reason=REASON_SENTENCES[code],
        updated_at=timezone.now(),
    )
    return bool(changed)


def response_unconfirm(*, response: Response) -> bool:
    """A confirmed claim whose block left the canonical chain back to pending; its stake leaves the
    challenge's sums in the same transaction. Conditional on the block hash it was confirmed in, so
    a claim re-confirmed meanwhile in a new block is left alone. True when this call moved it.
    After the challenge's resolution started the claim stays confirmed and counted, and an exception
    of kind `reorged` is recorded for staff (False): the verifiers report its missing payment."""
    with transaction.atomic():
        if barrier.resolution_started_locked(challenge_id=response.challenge_id):
            still = Response.objects.filter(
                pk=response.pk, status=ResponseStatus.CONFIRMED, block_hash=response.block_hash
            ).exists()
            if still:
                exception_record(response=response, kind=ExceptionKind.REORGED)
            return False
        now = timezone.now()
        changed = Response.objects.filter(
            pk=response.pk, status=ResponseStatus.CONFIRMED, block_hash=response.block_hash
        ).update(
            status=ResponseStatus.PENDING,
            reorged_at=now,
            submission_timestamp=None,
            block_number=None,
            block_hash="",
            transaction_index=None,
            log_index=None,
            updated_at=now,
        )
        if changed:
            challenge_stake_moved(challenge_id=response.challenge_id, stake=-response.submission_stake, count=-1)
    return bool(changed)


def response_mark_sent_by_submitter(*, response: Response, nonce: int | None) -> bool:
    """Record that a read of the claim's transaction showed the payer's own claim (sent from its
    address, carrying its commitment): it is then listed for the address whatever its status
    (responses/selectors.py, response_list_by_address). Set once, never taken back."""
    changed = Response.objects.filter(pk=response.pk, sent_by_submitter=False).update(
        sent_by_submitter=True, sender_nonce=nonce
    )
    response.sent_by_submitter = True
    return bool(changed)
