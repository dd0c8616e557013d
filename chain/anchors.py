"""The worker's step for a challenge's terms on chain (docs/protocol.md section 6; the task is
chain/tasks.py, anchor_challenge): it moves a challenge's anchor from queued to sent to confirmed
(or failed, saying why) through the services of challenges/services.py, reading and writing the
registry through chain/registry.py."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from eth_utils import to_checksum_address

from challenges.models import AnchorStatus, ChallengeAnchor
from challenges.services import (
    anchor_confirmed,
    anchor_failed,
    anchor_note,
    anchor_requeue,
    anchor_sent,
    anchor_touch,
)

from .client import ChainClient, ChainUnavailable, get_client
from .registry import (
    AnchorLog,
    anchor_calldata,
    anchor_find,
    anchor_log_decode,
    anchor_simulate,
    anchor_transaction_send,
    operator_account,
)
from .transfers import block_time, is_deep_enough, to_hex

logger = logging.getLogger(__name__)


class AnchorPending(Exception):
    """Nothing to decide yet (the transaction is not mined or not deep enough): look again later."""


OTHER_TERMS = (
    "Challenge #{id} is already anchored on the registry {registry} with other terms (transaction {tx}, "
    "block {block}): the first anchor wins and can never change. This happens when the database was reset "
    "and challenge ids started again against a registry used before: deploy a new registry "
    "(manage.py deploy_registry), set ANCHOR_REGISTRY_ADDRESS to it and retry the anchor."
)


def _differences(anchor: ChallengeAnchor, found: AnchorLog) -> list[str]:
    return [
        f"{name}: on chain {found.values()[name]}, the challenge's {getattr(anchor, name)}"
        for name in ("solution_sha256", "terms_sha256", "opens_at", "proximity_threshold_m")
        if found.values()[name] != getattr(anchor, name)
    ]


def _other_terms(anchor: ChallengeAnchor, found: AnchorLog) -> str:
    text = OTHER_TERMS.format(
        id=anchor.challenge_id, registry=anchor.registry_address, tx=found.transaction_hash, block=found.block_number
    )
    return text + " Differences: " + "; ".join(_differences(anchor, found)) + "."


def anchor_advance(*, challenge_id: int, client: ChainClient | None = None) -> str:
    """Move one challenge's anchor as far as the chain allows now; returns its status. Raises
    AnchorPending while the transaction is not yet deep enough, ChainUnavailable when no node
    answers (both: try again later). Safe to run twice at once: every move is a conditional UPDATE."""
    client = client or get_client()
    for _ in range(3):  # queued -> sent (sent or adopted) -> confirmed, in one run when the chain allows
        anchor = ChallengeAnchor.objects.filter(challenge_id=challenge_id).first()
        if anchor is None or anchor.status in (AnchorStatus.CONFIRMED, AnchorStatus.FAILED):
            return anchor.status if anchor else ""
        if anchor.status == AnchorStatus.QUEUED:
            _send(anchor, client)
        else:
            _follow(anchor, client)
    anchor = ChallengeAnchor.objects.get(challenge_id=challenge_id)
    if anchor.status in (AnchorStatus.QUEUED, AnchorStatus.SENT):
        raise AnchorPending("still on its way")
    return anchor.status


def _send(anchor: ChallengeAnchor, client: ChainClient) -> None:
    """Queued: adopt an identical anchor already on chain, fail on one with other terms, else send."""
    cid = anchor.challenge_id
    if not anchor.registry_address:
        anchor_failed(challenge_id=cid, error="ANCHOR_REGISTRY_ADDRESS is not set: set it, then retry the anchor.")
        return
    if not settings.ANCHOR_OPERATOR_KEY:
        anchor_failed(challenge_id=cid, error="ANCHOR_OPERATOR_KEY is not set: set it, then retry the anchor.")
        return
    registry = to_checksum_address(anchor.registry_address)
    code = client.call("eth_getCode", lambda w3: w3.eth.get_code(registry))
    if not code:
        anchor_failed(
            challenge_id=cid,
            error=f"No contract at {registry} on chain {settings.CHAIN_ID}: check ANCHOR_REGISTRY_ADDRESS.",
        )
        return
    found = anchor_find(client, registry=registry, challenge_id=cid)
    if found is not None:
        if _differences(anchor, found):
            anchor_failed(challenge_id=cid, error=_other_terms(anchor, found))
        else:
            # Ours, from an attempt whose answer was lost: adopt it rather than send again.
            logger.info("anchor of challenge %s: adopting %s already on chain", cid, found.transaction_hash)
            anchor_sent(challenge_id=cid, transaction_hash=found.transaction_hash, sender_address="", nonce=None)
        return
    account = operator_account()
    calldata = anchor_calldata(
        challenge_id=cid,
        solution_sha256=anchor.solution_sha256,
        terms_sha256=anchor.terms_sha256,
        opens_at=anchor.opens_at,
        threshold=anchor.proximity_threshold_m,
    )
    why = anchor_simulate(client, registry=registry, sender=account.address, calldata=calldata)
    if why == "OwnableUnauthorizedAccount":
        anchor_failed(
            challenge_id=cid,
            error=f"The operator key's address {account.address} is not the owner of the registry {registry}: "
            "set ANCHOR_OPERATOR_KEY to the owner's key (or move the ownership to it), then retry.",
        )
        return
    if why is not None:
        anchor_failed(challenge_id=cid, error=f"The registry refuses the anchor: {why}.")
        return
    # A re-send replaces the earlier transaction if its nonce is still unused, with higher fees.
    nonce, bump = None, 1
    if anchor.nonce is not None and anchor.sender_address == account.address:
        used = client.call("nonce", lambda w3: w3.eth.get_transaction_count(account.address, "latest"))
        if used <= anchor.nonce:
            nonce, bump = anchor.nonce, 2
    sent = anchor_transaction_send(client, registry=registry, calldata=calldata, nonce=nonce, bump=bump)
    logger.info("anchor of challenge %s sent in %s (nonce %s)", cid, sent.transaction_hash, sent.nonce)
    anchor_sent(challenge_id=cid, transaction_hash=sent.transaction_hash, sender_address=sent.sender, nonce=sent.nonce)


def _follow(anchor: ChallengeAnchor, client: ChainClient) -> None:
    """Sent: wait for the receipt and the depth, then check the log holds the challenge's values."""
    cid = anchor.challenge_id
    receipt = client.get_receipt(anchor.transaction_hash)
    if receipt is None:
        waited = timezone.now() - (anchor.sent_at or anchor.updated_at)
        if waited >= timedelta(seconds=settings.ANCHOR_RESEND_SECONDS):
            anchor_requeue(
                challenge_id=cid,
                error=f"No receipt for {anchor.transaction_hash} after {int(waited.total_seconds())} s "
                "(dropped or stuck): sending it again.",
            )
            return
        anchor_touch(challenge_id=cid)
        raise AnchorPending("not mined yet")
    registry = to_checksum_address(anchor.registry_address)
    if int(receipt["status"]) != 1:
        found = anchor_find(client, registry=registry, challenge_id=cid)
        if found is not None and not _differences(anchor, found):
            # Another attempt of ours got there first: that one is the anchor.
            anchor_sent(challenge_id=cid, transaction_hash=found.transaction_hash, sender_address="", nonce=None)
        elif found is not None:
            anchor_failed(challenge_id=cid, error=_other_terms(anchor, found))
        else:
            anchor_failed(
                challenge_id=cid,
                error=f"The anchor transaction {anchor.transaction_hash} reverted on chain; "
                "see it in the explorer, then retry.",
            )
        return
    block_number = int(receipt["blockNumber"])
    if not is_deep_enough(client, block_number):
        anchor_touch(challenge_id=cid)
        raise AnchorPending("not deep enough yet")
    block = client.get_block(block_number)
    if block is None or to_hex(block["hash"]) != to_hex(receipt["blockHash"]):
        anchor_touch(challenge_id=cid)
        raise AnchorPending("block replaced: the node is switching chains")
    logs = [
        a
        for a in (anchor_log_decode(log) for log in receipt["logs"])
        if a is not None and a.registry == registry and a.challenge_id == cid
    ]
    if not logs:
        anchor_failed(
            challenge_id=cid,
            error=f"The transaction {anchor.transaction_hash} holds no TermsAnchored log of challenge #{cid} "
            f"from the registry {registry}.",
        )
        return
    differences = _differences(anchor, logs[0])
    if differences:
        anchor_failed(
            challenge_id=cid,
            error="The anchor on chain holds other values than the challenge, which stays closed: "
            + "; ".join(differences)
            + ".",
        )
        return
    anchor_confirmed(
        challenge_id=cid,
        transaction_hash=anchor.transaction_hash,
        block_number=block_number,
        block_hash=to_hex(receipt["blockHash"]),
        block_timestamp=block_time(block),
    )
    logger.info("anchor of challenge %s confirmed in block %s", cid, block_number)


def anchor_step_noting(*, challenge_id: int, client: ChainClient | None = None) -> str:
    """anchor_advance, recording a node failure on the anchor (the admin shows it) before raising."""
    try:
        return anchor_advance(challenge_id=challenge_id, client=client)
    except ChainUnavailable as exc:
        anchor_note(challenge_id=challenge_id, error=f"No RPC node answered; retrying: {exc}")
        raise
