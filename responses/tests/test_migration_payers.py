"""responses/migrations/0007 marks as the payer's own (Response.sent_by_submitter) the rejected
claims whose rejection shows a read passed the sender and commitment checks, and no other: a
pending claim, or one rejected before those checks, is not known to be the payer's."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("responses", "0006_response_submitter_recent")]
AFTER = [("responses", "0007_payer_read_and_reopening")]


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


def test_only_rejections_after_the_sender_and_commitment_checks_are_marked_the_payers():
    apps = migrate(BEFORE)
    Challenge = apps.get_model("challenges", "Challenge")
    Response = apps.get_model("responses", "Response")
    challenge = Challenge.objects.create(
        poem_title="Stone Steps",
        poem_text="<p>p</p>",
        instructions_text="<p>i</p>",
        solution="1, 2",
        solution_salt="ab" * 32,
        solution_sha256="cd" * 32,
        status="active",
        start_timestamp=datetime(2026, 1, 1, tzinfo=UTC),
    )
    rows = {}
    for n, (status, code) in enumerate(
        [("rejected", "late"), ("rejected", "early"), ("rejected", "not_found"), ("rejected", "wrong_sender"),
         ("rejected", "tx_failed"), ("rejected", "amount_mismatch"), ("pending", "")]
    ):  # fmt: skip
        rows[code or status] = Response.objects.create(
            challenge=challenge,
            submission_text="1, 2",
            submission_lat="1",
            submission_lon="2",
            submission_salt="ef" * 32,
            commitment="12" * 32,
            submission_stake="5",
            transaction_hash="0x" + f"{n:064x}",
            submitter_address="0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            status=status,
            rejection_code=code,
        ).pk

    apps = migrate(AFTER)
    Response = apps.get_model("responses", "Response")
    marked = {name for name, pk in rows.items() if Response.objects.get(pk=pk).sent_by_submitter}
    assert marked == {"late", "early"}
