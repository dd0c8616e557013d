"""`make load`: the bounded load run against its own database (geopoem_load) and Redis DB 7.

    .venv/bin/python -m load.run --seconds 30 --users 20

Creates the database when missing, migrates it, empties it, opens one challenge, runs the mix in
load/locustfile.py against gunicorn with the production settings and prints the figures. Exits 1
on any 5xx, any request without an answer, or a stake answered 201 that is not exactly one row."""

import argparse
import os
import sys
from urllib.parse import urlsplit

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/geopoem_load"
DEFAULT_REDIS = "redis://127.0.0.1:6379/7"


def ensure_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DATABASE))
    parser.add_argument("--redis-url", default=os.environ.get("LOAD_REDIS_URL", DEFAULT_REDIS))
    args = parser.parse_args(argv)

    ensure_database(args.database_url)
    # This process only prepares and reads the database; the server under load runs the production settings.
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from challenges.services import challenge_create_published
    from devtools.pot_records import PotRecorder

    from .harness import run_load

    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)
    challenge = challenge_create_published(
        poem_title="Load",
        poem_text="<p>A poem under load</p>",
        instructions_text="<p>Guess</p>",
        proximity_threshold_m=150,
        solution="29.979175, 31.134258",
    )
    # The pot's Opened event is recorded as data, so the challenge is open (no pot is deployed: the
    # run measures the POST, load/harness.py).
    PotRecorder().open(challenge)
    database = urlsplit(args.database_url).path.lstrip("/")
    print(
        f"load: {args.users} players for {args.seconds} s against gunicorn ({args.workers} workers, production "
        f"settings), database {database}, Redis {args.redis_url}",
        flush=True,
    )
    figures = run_load(
        database_url=args.database_url,
        redis_url=args.redis_url,
        challenge_id=challenge.pk,
        seconds=args.seconds,
        users=args.users,
        workers=args.workers,
    )
    print(figures.report())
    ok = figures.server_errors == 0 and figures.no_answer == 0 and figures.reconciled
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
