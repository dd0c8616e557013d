"""Writes of claims paid by a signed authorization (docs/protocol.md section 2a): a new claim
(response_create_by_authorization; a direct transfer's is responses/services.py, response_create,
and the two share the guess, the replay's test and the insert), and the relay's progress, which
the chain app's relayer reports here so the claim's answers show it (responses/models.py,
StakeAuthorization). Each move of the relay is one conditional UPDATE from the statuses it may
leave, so a relayer that runs twice, or late, cannot move a claim backwards."""

from dataclasses import dataclass

from django.db.models import Q
from django.utils import timezone

from challenges.money import token_units
from challenges.selectors import challenge_is_open

from . import hooks
from .models import PaymentMethod, RelayStatus, Response, ResponseStatus, StakeAuthorization
from .services import ChallengeNotOpen, ClaimCannotMatch, ClaimResult, Guess, claim_accepted, claim_insert

# Where each status may be reached from. `queued` is only ever the first status; `refused`,
# `not_needed` and `failed` are final for the relayer (the player may still submit it themselves).
_MAY_FOLLOW: dict[str, tuple[str, ...]] = {
    RelayStatus.SENT: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.REFUSED: (RelayStatus.QUEUED,),
    RelayStatus.NOT_NEEDED: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.FAILED: (RelayStatus.QUEUED, RelayStatus.SENT),
}


def authorization_relay_moved(
    *, response_id: int, status: str, reason: str = "", code: str = "", transaction_hash: str = ""
) -> bool:
    """Move a claim's relay to `status` (with the player's sentence `reason`, and for `sent` the
    relayer's latest transaction); True when this call moved it. A `sent` claim may be sent again
    (a stuck transaction replaced with higher fees: the new hash)."""
    fields: dict[str, object] = {
        "relay_status": status,
        "relay_reason": reason,
        "relay_code": code,
        "updated_at": timezone.now(),
    }
    if transaction_hash:
        fields["relay_transaction_hash"] = transaction_hash.lower()
    changed = StakeAuthorization.objects.filter(response_id=response_id, relay_status__in=_MAY_FOLLOW[status]).update(
        **fields
    )
    return bool(changed)


# --- A new claim paid by authorization (docs/protocol.md 3.3a) ----------------------------------


class AuthorizationAlreadyUsed(Exception):
    """Another claim by authorization has this commitment (another stake or signature for the same
    guess and salt): the token takes one authorization per payer and nonce."""


class AuthorizationsUnsupported(Exception):
    """The token has no transfer authorizations (EIP-3009)."""


class AuthorizationsUnavailable(Exception):
    """The token's domain is not known and no node answered: the claim cannot be checked now."""


@dataclass(frozen=True)
class PostedAuthorization:
    """The authorization of a posted claim: its window and the payer's signature (0x, lowercase)."""

    valid_after: int
    valid_before: int
    signature: str

    def same_as(self, stored: StakeAuthorization) -> bool:
        return (self.valid_after, self.valid_before, self.signature) == (
            stored.valid_after,
            stored.valid_before,
            stored.signature,
        )


def response_create_by_authorization(
    *, guess: Guess, authorization: PostedAuthorization, client: object | None = None
) -> ClaimResult:
    """Store a pending claim paid by a signed authorization, and once committed queue its relay
    when the relayer took it, and its verification when the token shows it used already (an unused
    one is found by the head watcher's rounds).

    One claim per commitment: the identical claim posted again (a retry after a lost answer, also
    twenty at once) returns the stored one; any other (another stake or signature for the same guess
    and salt) raises AuthorizationAlreadyUsed. Otherwise the chain app's check runs while the POST
    waits (chain/authorization_checks.py, through responses/hooks.py): a refusal raises
    ClaimCannotMatch with its code and nothing is stored; a token without transfer authorizations
    raises AuthorizationsUnsupported, a domain that cannot be read AuthorizationsUnavailable. The
    claim is the payer's own (the signature proves it: sent_by_submitter, listed for the address at
    once); an authorization the token shows used already is stored with nothing to relay.
    `guess` is the claim's guess (responses/services.py, claim_guess: its challenge exists)."""

    def stored() -> Response | None:
        return (
            Response.objects.select_related("authorization")
            .filter(commitment=guess.commitment, payment_method=PaymentMethod.AUTHORIZATION)
            .first()
        )

    def replay(existing: Response) -> ClaimResult:
        if not (guess.same_as(existing) and authorization.same_as(existing.authorization)):
            raise AuthorizationAlreadyUsed
        return ClaimResult(response=existing, created=False)

    existing = stored()
    if existing is not None:
        return replay(existing)
    claim_accepted(guess)
    read = hooks.authorization_check(
        hooks.AuthorizationClaim(
            submitter_address=guess.address,
            commitment=guess.commitment,
            stake_units=token_units(guess.stake),
            valid_after=authorization.valid_after,
            valid_before=authorization.valid_before,
            signature=authorization.signature,
            challenge_id=guess.challenge.pk,
        ),
        client=client,
    )
    if read.unavailable:
        raise AuthorizationsUnavailable
    if read.unsupported:
        raise AuthorizationsUnsupported
    if read.code is not None:
        raise ClaimCannotMatch(read.code)
    if not read.used and not challenge_is_open(challenge_id=guess.challenge.pk):
        # Closed, or resolving: an authorization not used yet can only be mined after the close, where
        # its stake would be rejected `late` and its USDC kept. Refused, so nothing is sent; a page
        # posts it again (409 "not accepting" may pass), and once the chain shows it used in time it
        # is stored like any claim of a payment mined before the close.
        raise ChallengeNotOpen
    # Used on chain already (the player, or anyone, submitted it): nothing for the relayer to send.
    relay = (
        hooks.RelayAdmission(status=RelayStatus.NOT_NEEDED, code="used")
        if read.used
        else hooks.relay_admit(submitter_address=guess.address)
    )

    def insert() -> Response:
        response = Response.objects.create(
            challenge=guess.challenge,
            **guess.fields,
            submission_stake=guess.stake,
            payment_method=PaymentMethod.AUTHORIZATION,
            transaction_hash="",  # the transaction that uses it is found by verification
            submitter_address=guess.address,
            sent_by_submitter=True,
        )
        StakeAuthorization.objects.create(
            response=response,
            valid_after=authorization.valid_after,
            valid_before=authorization.valid_before,
            signature=authorization.signature,
            search_from_block=read.search_from_block,
            relay_status=relay.status,
            relay_reason=relay.reason,
            relay_code=relay.code,
        )
        return response

    def announce(response_id: int) -> None:
        # A verification now can only find an unused authorization pending (docs/performance.md,
        # section 7: a burst queued a hundred such runs ahead of the head watcher's). Its use is found
        # by the head watcher's round at each block (chain/heads.py); one used already is decided now.
        if read.used:
            hooks.queue_verification(response_id)
        if relay.status == RelayStatus.QUEUED:
            hooks.queue_relay(response_id)

    def replay_stored() -> ClaimResult | None:
        existing = stored()
        return None if existing is None else replay(existing)

    return claim_insert(guess, insert=insert, announce=announce, replay=replay_stored)


def response_payment_found(*, response: Response, transaction_hash: str) -> bool:
    """Record the transaction that used a pending claim's authorization (docs/protocol.md section
    2a): the claim's transactionHash becomes that transaction's, whoever sent it and whatever it
    called. Conditional on the claim being pending and paid by authorization; a claim whose
    authorization is used again after its first use left the chain (a reorg) takes the new hash.
    True when this call changed it."""
    transaction_hash = transaction_hash.lower()
    changed = (
        Response.objects.filter(
            pk=response.pk, status=ResponseStatus.PENDING, payment_method=PaymentMethod.AUTHORIZATION
        )
        .exclude(transaction_hash=transaction_hash)
        .update(transaction_hash=transaction_hash)
    )
    response.transaction_hash = transaction_hash
    return bool(changed)


def authorization_search_lowered(*, response: Response, block: int) -> bool:
    """Move the start of the search for a claim's authorization down to `block`: its use was mined
    before the block the search started at (chain/authorization_verification.py, which calls it only
    with a block below that start). True when this call moved it."""
    later = Q(search_from_block__gt=block) | Q(search_from_block__isnull=True)  # null: from the anchor's block
    changed = StakeAuthorization.objects.filter(later, response_id=response.pk).update(search_from_block=block)
    return bool(changed)
