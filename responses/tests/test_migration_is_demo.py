"""responses/migrations/0004 marks the claims seed_demo made before Response.is_demo existed, and
no other: a real claim on a demo challenge must stay subject to the reorg re-check."""

import hashlib
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("responses", "0003_claims_per_transaction"), ("challenges", "0002_payout")]
AFTER = [("responses", "0004_response_is_demo_seeded_claims")]


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    """Later tests need every migration applied: going back to BEFORE unapplied the newer ones."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_seeded_claims_are_marked_and_real_ones_are_not():
    apps = migrate(BEFORE)
    Challenge = apps.get_model("challenges", "Challenge")
    Response = apps.get_model("responses", "Response")
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def challenge(title, *, is_demo, status):
        return Challenge.objects.create(
            poem_title=title,
            poem_text="<p>p</p>",
            instructions_text="<p>i</p>",
            solution="1, 2",
            solution_salt="ab" * 32,
            solution_sha256="cd" * 32,
            status=status,
            is_demo=is_demo,
            start_timestamp=now,
        )

    def claim(on, tx_hash):
        return Response.objects.create(
            challenge=on,
            submission_text="1, 2",
            submission_lat="1",
            submission_lon="2",
            submission_salt="ef" * 32,
            commitment="12" * 32,
            submission_stake="5",
            transaction_hash=tx_hash,
            submitter_address="0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            status="confirmed",
            block_number=1000,
        )

    demo = challenge("Four Thousand Summers", is_demo=True, status="resolved")
    active_demo = challenge("The Torch on the Tide", is_demo=True, status="active")
    seeded = claim(demo, "0x" + hashlib.sha256(b"geopoem-demo|Four Thousand Summers|0").hexdigest())
    real_on_demo = claim(active_demo, "0x" + "ab" * 32)

    apps = migrate(AFTER)
    Response = apps.get_model("responses", "Response")
    assert Response.objects.get(pk=seeded.pk).is_demo is True
    assert Response.objects.get(pk=real_on_demo.pk).is_demo is False
