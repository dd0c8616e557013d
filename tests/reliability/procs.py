"""What the reliability tests run beyond the shared process helpers (devtools/processes.py):
gunicorn with the production settings, a private PostgreSQL cluster, the production environment
on loopback and a snapshot of the built bundle. Each process gets a free loopback port and is
stopped by its own PID (never by name: other engineers run the same programs on this machine)."""

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from devtools import processes


@dataclass(frozen=True)
class Server:
    url: str
    env: dict
    log: Path


def production_env(*, database: str, redis_url: str, static_root: Path, **extra: str) -> dict:
    """The environment a production deploy would have, on loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CHAIN_", "POT_", "RELAY"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database,
        REDIS_URL=redis_url,
        STATIC_ROOT=str(static_root),
        CHAIN_RPC_URLS="http://127.0.0.1:9",
        # Production refuses to start without a chain id, the pot and its operator key
        # (config/settings/production.py): made up here (no chain behind the default RPC URL); a stack
        # with a chain passes its own (tests/reliability/stack.py).
        CHAIN_ID="11155111",
        POT_ADDRESS="0x5FbDB2315678afecb367f032d93F642f64180aa3",
        POT_OPERATOR_KEY="0x" + "5e" * 32,
        LOG_LEVEL="INFO",
    )
    env.update(extra)
    return env


def snapshot_bundle(target: Path, *, timeout: float = 120.0) -> dict:
    """Copy the built bundle (webpack-stats.json and frontend/build) once the stats say "done" and
    every file they name exists; returns the environment that points the snapshot settings at it."""
    stats_file = processes.ROOT / "frontend" / "webpack-stats.json"
    deadline = time.monotonic() + timeout
    while True:
        try:
            stats = json.loads(stats_file.read_text())
            names = list(stats["assets"])
            build = processes.ROOT / "frontend" / "build"
            if stats.get("status") == "done" and all((build / name).exists() for name in names):
                shutil.copytree(build, target / "build", dirs_exist_ok=True)
                (target / "webpack-stats.json").write_text(json.dumps(stats))
                if all((target / "build" / name).exists() for name in names):
                    break
        except (ValueError, KeyError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the front-end bundle is not built (run `make build`)")
        time.sleep(1)
    return {
        "DJANGO_SETTINGS_MODULE": "tests.reliability.production_snapshot",
        "RELIABILITY_WEBPACK_STATS": str(target / "webpack-stats.json"),
        "RELIABILITY_BUNDLE_DIR": str(target / "build"),
    }


def collectstatic(static_root: Path, env: dict) -> None:
    subprocess.run(
        [processes.PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"],
        env=env,
        cwd=processes.ROOT,
        check=True,
        timeout=120,
    )


@contextmanager
def gunicorn(env: dict, *, workers: int = 2, log: Path, threads: int = 1) -> Iterator[str]:
    """gunicorn serving config.wsgi with the given environment, its access log in `log`; yields its
    base URL once its port accepts (within 60 s)."""
    options = ["--threads", str(threads), "--access-logfile", "-", "--timeout", "60"]
    with processes.gunicorn(env, workers=workers, options=options, log=log, timeout=60) as url:
        yield url


@contextmanager
def private_postgres() -> Iterator["PrivatePostgres"]:
    """A PostgreSQL cluster of our own (initdb in a temp dir, a free port), so a test may restart
    it without touching the machine's shared server."""
    instance = PrivatePostgres()
    try:
        instance.init()
        instance.start()
        yield instance
    finally:
        instance.stop()
        instance.cleanup()


class PrivatePostgres:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="geopoem-pg-"))
        self.data = self.root / "data"
        self.port = processes.free_port()
        self.run_as: list[str] = []
        if os.geteuid() == 0:
            # initdb refuses root: run the cluster as the postgres system user.
            shutil.chown(self.root, "postgres", "postgres")
            self.run_as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str, timeout: float = 120) -> None:
        subprocess.run([*self.run_as, *args], check=True, timeout=timeout, capture_output=True)

    def init(self) -> None:
        self._run(
            shutil.which("initdb") or "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"
        )

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.root} -c fsync=off -c full_page_writes=off"
        self._run(shutil.which("pg_ctl") or "pg_ctl", "-D", str(self.data), "-o", options,
                  "-l", str(self.root / "pg.log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(shutil.which("pg_ctl") or "pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def pid(self) -> int | None:
        pidfile = self.data / "postmaster.pid"
        return int(pidfile.read_text().split()[0]) if pidfile.exists() else None

    def url(self, name: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
