"""A challenge's anchor recorded as confirmed without a chain: data for the tests and benchmarks
that run no chain (conftest.py's make_challenge, bench/data.py, load/run.py), as they record
confirmed claims with made-up hashes. It goes through the anchor's own services
(challenges/services.py), but no chain holds the values it records; the real path is the worker's
(chain/anchors.py), which the chain tests and the stacks with a chain use.

No app is imported at module level (docs/architecture.md: devtools depends on no app layer)."""

from __future__ import annotations

# A made-up registry address for anchors that no chain holds.
RECORDED_REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def record_confirmed_anchor(challenge, *, block_number: int = 7):
    """Move a published challenge's queued anchor to confirmed with made-up chain values; returns it."""
    from datetime import UTC, datetime

    from challenges.models import ChallengeAnchor
    from challenges.services import anchor_confirmed, anchor_sent

    tx_hash = "0x" + f"{challenge.pk:064x}"
    ChallengeAnchor.objects.filter(challenge=challenge, registry_address="").update(registry_address=RECORDED_REGISTRY)
    assert anchor_sent(challenge_id=challenge.pk, transaction_hash=tx_hash, sender_address="", nonce=None)
    assert anchor_confirmed(
        challenge_id=challenge.pk,
        transaction_hash=tx_hash,
        block_number=block_number,
        block_hash="0x" + "ab" * 32,
        block_timestamp=datetime.fromtimestamp(int(challenge.start_timestamp.timestamp()), tz=UTC),
    )
    return ChallengeAnchor.objects.get(challenge=challenge)
