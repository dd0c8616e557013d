"""Reliability tests: a production-settings server shared by the deploy and abuse tests, and the
fuzzing figures printed at the end of the run."""

import pytest

from devtools.workers import database_url

from . import procs

# This engineer's Redis database on the shared server (cache and throttle counters of the server).
REDIS_DB_URL = "redis://127.0.0.1:6379/7"
TILES_URL = "https://tiles.example.org/{z}/{x}/{y}.png"


@pytest.fixture(scope="session")
def production_server(django_db_setup, django_db_blocker, tmp_path_factory):
    """gunicorn (2 workers) with config.settings.production on a free loopback port, against the
    test database and Redis; stopped by its PID at the end of the session."""
    import redis

    redis.Redis.from_url(REDIS_DB_URL).flushdb()  # throttle counters of an earlier run
    tmp = tmp_path_factory.mktemp("production")
    env = procs.production_env(
        database=database_url(), redis_url=REDIS_DB_URL, static_root=tmp / "static", MAP_TILES_URL=TILES_URL
    )
    env.update(procs.snapshot_bundle(tmp))
    procs.collectstatic(tmp / "static", env)
    log = tmp / "gunicorn.log"
    with procs.gunicorn(env, workers=2, log=log) as url:
        yield procs.Server(url=url, env=env, log=log)


def pytest_terminal_summary(terminalreporter):
    """The figures of this run, from the modules that ran (a module not collected is not imported)."""
    import sys

    faults = sys.modules.get(f"{__package__}.test_faults")
    if faults is not None and faults.FAULTS_SURVIVED:
        terminalreporter.write_line(f"faults survived: {len(faults.FAULTS_SURVIVED)}")
        for fault in faults.FAULTS_SURVIVED:
            terminalreporter.write_line(f"  {fault}")
    load = sys.modules.get(f"{__package__}.test_load")
    for figures in load.LOAD_FIGURES if load is not None else []:
        for line in figures.report().splitlines():
            terminalreporter.write_line(line)
    fuzz = sys.modules.get(f"{__package__}.test_fuzz_api")
    if fuzz is not None and fuzz.FUZZ_COUNTS:
        total = sum(fuzz.FUZZ_COUNTS.values())
        terminalreporter.write_line(f"schemathesis: {total} generated cases, 0 server errors allowed")
        for operation, count in sorted(fuzz.FUZZ_COUNTS.items()):
            terminalreporter.write_line(f"  {operation}: {count}")
        statuses = ", ".join(f"{code}: {n}" for code, n in sorted(fuzz.FUZZ_STATUSES.items()))
        terminalreporter.write_line(f"  answers by status: {statuses}")
    if fuzz is not None and fuzz.TWIN_STATUSES:
        twins = ", ".join(f"{code}: {n}" for code, n in sorted(fuzz.TWIN_STATUSES.items()))
        total = sum(fuzz.TWIN_STATUSES.values())
        terminalreporter.write_line(f"odd bodies (huge numbers, odd charsets): {total} requests; by status: {twins}")
