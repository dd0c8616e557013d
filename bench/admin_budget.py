"""Benchmark: every staff action in the admin on a challenge with 200,000 confirmed responses
(loaded with COPY, as the scale benchmark does) answers within the 30-second budget of a platform
router and of gunicorn's default timeout. Each page and action is requested in-process through the
real admin (django.test.Client, production settings, a logged-in superuser); a streamed answer (the
CSV export) is timed to its last byte. The resolution itself is timed as the worker runs it.

`python -m bench.run admin_budget` (BENCH_ADMIN_COUNT, default 200000)."""

import json
import os
import sys

COUNT = int(os.environ.get("BENCH_ADMIN_COUNT", "200000"))
BUDGET_SECONDS = 30.0


PAYMENTS_FROM_RESPONSES = """
INSERT INTO chain_payment (transaction_hash, log_index, block_number, block_hash, transaction_index, from_address,
    to_address, amount_units, commitment, challenge_id_word, timestamp_word, block_timestamp, response_id, removed,
    created_at, updated_at)
SELECT transaction_hash, log_index, block_number, block_hash, transaction_index, submitter_address,
    '0x000000000000000000000000000000000000dEaD', submission_stake * 1000000, commitment, challenge_id, NULL,
    submission_timestamp, id, false, now(), now()
FROM responses_response WHERE challenge_id = %s
"""


def run() -> dict:
    from .common import command, fresh_database, log, python_module, write_result

    env = fresh_database(BENCH_PLAIN_STATIC="1", CHALLENGE_CLOSE_GRACE_SECONDS="0")
    log(f"admin actions on a challenge of {COUNT:,} responses loaded with COPY")
    figures = json.loads(python_module("bench.admin_budget", env, "measure", str(COUNT)))
    slowest = max(figures["requests"], key=lambda r: r["seconds"])
    log(f"slowest admin request: {slowest['action']} {slowest['seconds']:.2f} s")
    log(f"resolution (the worker's task) {figures['resolveSeconds']:.2f} s")
    figures["budgetSeconds"] = BUDGET_SECONDS
    figures["meets"] = all(r["seconds"] < BUDGET_SECONDS for r in figures["requests"])
    figures["command"] = command("admin_budget", "BENCH_ADMIN_COUNT")
    return write_result("admin", figures)


def measure(count: int) -> dict:
    import time
    from datetime import timedelta

    from chain.indexer import INDEX_CURSOR
    from chain.models import ChainCursor
    from challenges.models import Challenge
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone
    from responses.models import Response
    from responses.tasks import resolve_challenge

    from .data import copy_confirmed, new_challenge

    started = time.perf_counter()
    challenge = new_challenge("Two hundred thousand responses")
    copy_confirmed(challenge, count)
    with connection.cursor() as cursor:
        # The ledger row verification writes beside each confirmed claim (chain.Payment), in SQL.
        cursor.execute(PAYMENTS_FROM_RESPONSES, [challenge.pk])
        cursor.execute("ANALYZE chain_payment")
    load_seconds = time.perf_counter() - started
    user = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench-only-password-1")
    client = Client()
    client.force_login(user)
    requests = []

    def timed(action: str, method: str, path: str, data=None, *, expect=(200, 302)) -> object:
        began = time.perf_counter()
        answer = client.post(path, data or {}) if method == "POST" else client.get(path, data or {})
        size = sum(len(part) for part in answer.streaming_content) if answer.streaming else len(answer.content)
        seconds = time.perf_counter() - began
        assert answer.status_code in expect, (action, answer.status_code)
        requests.append(
            {"action": action, "method": method, "status": answer.status_code, "bytes": size, "seconds": seconds}
        )
        return answer

    change = reverse("admin:challenges_challenge_change", args=[challenge.pk])
    step = lambda name: reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, name])  # noqa: E731
    responses = reverse("admin:responses_response_changelist")
    some = Response.objects.filter(challenge=challenge).order_by("id")[count // 2]

    timed("admin index", "GET", reverse("admin:index"))
    timed("challenges changelist", "GET", reverse("admin:challenges_challenge_changelist"))
    timed("challenge page (active)", "GET", change)
    timed("close: confirmation page", "GET", step("close"))
    timed("close", "POST", step("close"))
    # Resolution waits until the ledger indexer has read past the close (responses/barrier.py); no
    # chain here, so its cursor is recorded past it, as the beat's indexer would leave it.
    ChainCursor.objects.update_or_create(
        name=INDEX_CURSOR, defaults={"block_number": 0, "block_time": timezone.now() + timedelta(seconds=1)}
    )
    timed("resolve: confirmation page", "GET", step("resolve"))
    timed("resolve: start", "POST", step("resolve"))
    timed("challenge page (resolving)", "GET", change)
    timed("challenges changelist (resolving)", "GET", reverse("admin:challenges_challenge_changelist"))
    began = time.perf_counter()
    assert resolve_challenge.apply(args=[challenge.pk]).get() == "done"  # the worker's part
    resolve_seconds = time.perf_counter() - began
    challenge = Challenge.objects.get(pk=challenge.pk)
    assert challenge.is_resolved
    timed("challenge page (resolved)", "GET", change)
    timed("challenge history", "GET", reverse("admin:challenges_challenge_history", args=[challenge.pk]))
    timed("export CSV (whole stream)", "GET", reverse("admin:challenges_challenge_export", args=[challenge.pk]))
    timed("responses changelist", "GET", responses)
    timed("responses changelist, last page", "GET", responses, {"p": str(count // 100)})
    timed("responses of the challenge", "GET", responses, {"challenge__id__exact": str(challenge.pk)})
    timed("responses: correct only", "GET", responses, {"correct": "yes"})
    timed("responses: incorrect only", "GET", responses, {"correct": "no"})
    timed("responses: confirmed only", "GET", responses, {"status__exact": "confirmed"})
    timed("responses: search by address", "GET", responses, {"q": some.submitter_address})
    timed("responses: search by transaction", "GET", responses, {"q": some.transaction_hash})
    timed("response page", "GET", reverse("admin:responses_response_change", args=[some.pk]))
    timed("payouts changelist", "GET", reverse("admin:challenges_payout_changelist"))
    payments = reverse("admin:chain_payment_changelist")
    timed("payments changelist", "GET", payments)
    timed("payments: backs a claim", "GET", payments, {"claim": "claimed"})
    timed("payments: unclaimed", "GET", payments, {"claim": "unclaimed"})
    timed("payments: reorged away", "GET", payments, {"claim": "removed"})
    timed("payments: search by transaction", "GET", payments, {"q": some.transaction_hash})
    timed("payments: search by address", "GET", payments, {"q": some.submitter_address})
    return {"count": count, "loadSeconds": load_seconds, "resolveSeconds": resolve_seconds, "requests": requests}


if __name__ == "__main__":
    import django

    django.setup()
    if sys.argv[1:2] == ["measure"]:
        print(json.dumps(measure(int(sys.argv[2]))))
    else:
        raise SystemExit("usage: python -m bench.admin_budget measure COUNT")
