"""The short load run CI keeps (the long one is `make load`, load/run.py): gunicorn with the
production settings (4 worker processes, PostgreSQL, Redis DB 7 as cache and broker), warmed up, then
under locust's mix of page and API reads and signed stakes' POSTs for 8 seconds, each checked on an
anvil node (load/harness.py). No answer may be a 5xx or missing, and every stake answered 201 must be
exactly one row in the database (identical re-posts answer 200 and add none)."""

import pytest

from devtools.workers import database_url
from load.harness import run_load

from .conftest import REDIS_DB_URL

pytestmark = [pytest.mark.integration, pytest.mark.postgresql]

LOAD_SECONDS = 8
LOAD_USERS = 10
LOAD_FIGURES: list = []  # printed in the terminal summary (conftest.py)


def test_a_short_load_run_answers_no_5xx_and_every_201_is_exactly_one_row(
    production_server, transactional_db, make_challenge, tmp_path
):
    challenge = make_challenge(title="Load")
    figures = run_load(
        database_url=database_url(),
        redis_url=REDIS_DB_URL,
        challenge_id=challenge.pk,
        seconds=LOAD_SECONDS,
        users=LOAD_USERS,
        workdir=tmp_path,
        collected=production_server.env,
    )
    LOAD_FIGURES.append(figures)
    print(figures.report())
    # No throughput floor: the machine is shared and the figure varies with what else runs; the
    # run must only have really posted stakes (each player opens the page first, then the mix).
    assert figures.requests > LOAD_USERS and figures.created, figures.report()
    assert figures.server_errors == 0, figures.report()
    assert figures.no_answer == 0, figures.report()
    assert figures.reconciled, figures.report()
    assert figures.rows == len(figures.created) + len(figures.warmup)
    # No relayer: no stake reached the pot, so nothing may have been counted into it.
    assert (figures.staked_sum, figures.response_count) == ("0.000000", 0)
