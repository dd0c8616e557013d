"""A payment found late still counts (docs/protocol.md section 3.3, "A claim found late").

A claim is rejected `not_found` when no node knew its transaction by CHAIN_NOT_FOUND_TIMEOUT_SECONDS,
and `reorged` when its block left the chain and the transaction did not come back within
CHAIN_REORG_TIMEOUT_SECONDS. Neither says the payment cannot exist: a transaction stuck in a pool can
be mined an hour later, a wallet can send a signed transaction late, a dropped one can return. Such
a claim is re-opened (pending again, verified again, with a new deadline) when:

- its very claim is posted again (responses/services.py, response_create) and the POST's read shows
  the transaction mined (response_reopen_on_repost);
- the ledger indexer records the payment, whose calldata carries the claim's commitment
  (chain/indexer.py, through responses_reopen_found).

Only a mined transaction re-opens a claim: a made-up hash, or a transaction left waiting in a pool,
never does, however often it is posted, so nobody keeps a claim pending (and a challenge's
resolution waiting) by posting it again. A mined transaction is decided within a few blocks, so a
re-opened claim ends confirmed or rejected for a reason of the payment itself."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from . import hooks
from .models import Response, ResponseStatus
from .reasons import Reason

# The rejections that say "not seen on chain (any more)", not "seen and wrong".
REOPENABLE = (Reason.NOT_FOUND, Reason.REORGED)


def response_reopen(*, response: Response, sent_by_submitter: bool = False, nonce: int | None = None) -> bool:
    """A claim rejected not_found or reorged back to pending with a new deadline (reopened_at), its
    verification queued once committed. Conditional on its status and code, so two re-posts at once
    re-open it once; no sums move (a rejected claim holds none). True when this call re-opened it."""
    now = timezone.now()
    fields: dict[str, object] = {
        "status": ResponseStatus.PENDING,
        "rejection_code": "",
        "rejection_reason": "",
        "reopened_at": now,
        "updated_at": now,
    }
    if sent_by_submitter:  # a read never takes the flag back: it was the payer's claim once seen so
        fields.update(sent_by_submitter=True, sender_nonce=nonce)
    changed = Response.objects.filter(
        pk=response.pk, status=ResponseStatus.REJECTED, rejection_code__in=REOPENABLE
    ).update(**fields)
    if changed:
        transaction.on_commit(lambda: hooks.queue_verification(response.pk))
    return bool(changed)


def response_reopen_on_repost(response: Response, *, client: object | None) -> Response:
    """The stored claim a re-post gets back: as it is, unless it was rejected not_found or reorged
    and a read of its transaction now shows it mined and not a claim it can never match; then
    re-opened. `client` as for response_create (the chain client the POST reads with)."""
    if response.status != ResponseStatus.REJECTED or response.rejection_code not in REOPENABLE:
        return response
    read = hooks.claim_check(
        transaction_hash=response.transaction_hash,
        submitter_address=response.submitter_address,
        commitment=response.commitment,
        challenge_id=response.challenge_id,
        client=client,
    )
    if read.code is not None or not read.mined:
        return response
    response_reopen(response=response, sent_by_submitter=read.sent_by_submitter, nonce=read.nonce)
    response.refresh_from_db()
    return response


def responses_reopen_found(*, transaction_hash: str, commitment: str) -> list[int]:
    """The claims on a payment the indexer recorded that were rejected not_found or reorged and
    carry the commitment its calldata holds (the payer's: a stranger's claim on the same hash
    carries another), re-opened. Returns their ids."""
    if not commitment:
        return []
    claims = Response.objects.filter(
        transaction_hash=transaction_hash,
        commitment=commitment.lower(),
        status=ResponseStatus.REJECTED,
        rejection_code__in=REOPENABLE,
    )
    return [claim.pk for claim in claims if response_reopen(response=claim)]
