"""What the tests that start processes of their own share about Celery and the database: the project's
Celery app pointed at another broker (chain/tests/relayer/test_wake.py), and the URL of pytest-django's
test database for another process (tests/reliability/)."""

from __future__ import annotations


def point_app_at(url: str) -> None:
    """Send this process's tasks (the API's on-commit enqueue) to `url`: the Celery app read its
    broker from settings once, so set it on the app and let it pick the pools of the new one (kombu
    keeps each broker's pool in a registry: closing the old one would break the next test using it)."""
    from config.celery_app import app

    app._pool = None
    app.amqp._producer_pool = None
    app.conf.broker_url = url
    app.conf.broker_transport_options = {"visibility_timeout": 3600}


def database_url() -> str:
    """The URL of the database the tests use (pytest-django's test database), for other processes."""
    from django.db import connection

    db = connection.settings_dict
    if not db["ENGINE"].endswith("postgresql"):
        raise RuntimeError("this test needs PostgreSQL (make test uses it)")
    name = db["NAME"]
    if not name.startswith("test_"):
        # Outside a test function the connection may still carry the configured name.
        name = connection.creation._get_test_db_name()
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db.get('USER') or 'postgres'}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    )
