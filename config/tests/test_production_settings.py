"""Production settings fail closed: each required variable missing, a weak SECRET_KEY, a pot address
that is not a checksummed one or a malformed key makes every command refuse to start with one
message naming the problem. Run as real
subprocesses with a controlled environment (nothing inherited from the shell but PATH)."""

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
POT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
OPERATOR_KEY = "0x" + "5e" * 32  # a key made up for this test

REQUIRED = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "geopoem.example",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/geopoem_deploy",
    "REDIS_URL": "redis://127.0.0.1:6379/14",
    "CHAIN_RPC_URLS": "http://127.0.0.1:9",
    "CHAIN_ID": "11155111",
    "POT_ADDRESS": POT,
    "POT_OPERATOR_KEY": OPERATOR_KEY,
}


def manage(
    *args: str, drop: tuple[str, ...] = (), cwd: Path = ROOT, python_flags: tuple[str, ...] = (), **overrides: str
) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "config.settings.production", **REQUIRED}
    env.update(overrides)
    for name in drop:
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, *python_flags, "manage.py", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_full_set_passes_the_deploy_check():
    result = manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.parametrize("name", ["DATABASE_URL", "REDIS_URL", "CHAIN_RPC_URLS", "CHAIN_ID", "SECRET_KEY",
                                  "ALLOWED_HOSTS", "POT_ADDRESS", "POT_OPERATOR_KEY"])  # fmt: skip
def test_each_required_variable_missing_refuses_to_start(name):
    result = manage("check", drop=(name,))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"{name} is not set" in result.stderr
    assert result.stderr.count("is not set") == 1  # only the one that is missing is named


def test_an_empty_value_counts_as_missing():
    result = manage("check", DATABASE_URL="", REDIS_URL=" ")
    assert result.returncode != 0
    assert "DATABASE_URL is not set; REDIS_URL is not set" in result.stderr


def test_one_message_names_every_missing_variable():
    result = manage("check", drop=tuple(REQUIRED))
    assert result.returncode != 0
    message = next(line for line in result.stderr.splitlines() if "Production settings refuse to start" in line)
    for name in REQUIRED:
        assert name in message


# -O strips assert statements: the refusal must not depend on them.
@pytest.mark.parametrize("python_flags", [(), ("-O",)], ids=["python", "python -O"])
def test_a_database_url_naming_sqlite_refuses_to_start(python_flags):
    result = manage("check", python_flags=python_flags, DATABASE_URL="sqlite:////tmp/geopoem-production.sqlite3")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DATABASE_URL must name a PostgreSQL database, not SQLite" in result.stderr
    assert "AssertionError" not in result.stderr


@pytest.mark.parametrize("python_flags", [(), ("-O",)], ids=["python", "python -O"])
def test_a_redis_url_that_names_no_redis_refuses_to_start(python_flags):
    """The cache and the Celery broker both come from REDIS_URL: another scheme (kombu's in-memory
    or filesystem transport) would lose queued tasks and the cache at every restart."""
    result = manage("check", python_flags=python_flags, REDIS_URL="memory://")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "REDIS_URL must be a redis:// or rediss:// URL" in result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "x" * 50,  # too few different characters
        secrets.token_urlsafe(20),  # too short
        "django-insecure-" + secrets.token_urlsafe(50),  # Django's own development prefix
    ],
)
def test_a_secret_key_the_deploy_check_calls_insecure_refuses_to_start(key):
    result = manage("check", SECRET_KEY=key)
    assert result.returncode != 0
    assert "SECRET_KEY is insecure" in result.stderr
    assert key not in result.stderr  # the refusal does not print the key


def test_another_chain_needs_its_own_usdc_address():
    """The default USDC_ADDRESS is Circle's on Sepolia: on another chain it would name nothing, or
    something else."""
    assert "USDC_ADDRESS is not set" in manage("check", CHAIN_ID="1").stderr
    assert manage("check", CHAIN_ID="1", USDC_ADDRESS="0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48").returncode == 0


def test_production_uses_redis_and_postgresql_never_the_embedded_defaults():
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);print(s.CACHES['default']['BACKEND']);"
        "print(s.CELERY_BROKER_URL);print(s.POT_ADDRESS);print(s.CHAIN_RPC_URLS)"
    )
    result = manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    engine, cache, broker, pot, rpc = result.stdout.splitlines()[-5:]
    assert engine == "django.db.backends.postgresql"
    assert cache == "config.redis_cache.RedisCache"
    assert broker == REQUIRED["REDIS_URL"]
    assert pot == POT
    assert rpc == "['http://127.0.0.1:9']"


def test_build_time_collectstatic_runs_without_the_runtime_config_vars(tmp_path):
    """The Python buildpack runs `manage.py collectstatic --noinput` while building, when the add-on
    URLs may be the only config vars: it works, and the same environment refuses any other command."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "hello.js").write_text("console.log('hi');\n" * 200)
    static_root = tmp_path / "static"
    settings = tmp_path / "buildcheck_settings.py"
    # The production settings, with one extra static folder so the test does not need the bundle.
    settings.write_text(
        f"from config.settings.production import *  # noqa: F403\nSTATICFILES_DIRS = [{str(build)!r}]\n"
    )
    only_addons = {"DATABASE_URL": REQUIRED["DATABASE_URL"], "REDIS_URL": REQUIRED["REDIS_URL"]}
    common: dict[str, Any] = {  # manage()'s keyword arguments: `drop` and the environment
        "drop": tuple(REQUIRED),
        "DJANGO_SETTINGS_MODULE": "buildcheck_settings",
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}",
        "STATIC_ROOT": str(static_root),
        **only_addons,
    }
    collected = manage("collectstatic", "--noinput", "-v0", **common)
    assert collected.returncode == 0, collected.stderr
    manifest = static_root / "staticfiles.json"
    assert manifest.exists()
    assert list(static_root.glob("hello.*.js.gz")) and list(static_root.glob("hello.*.js.br"))
    refused = manage("migrate", "--noinput", **common)
    assert refused.returncode != 0 and "POT_ADDRESS is not set" in refused.stderr
    # A command that is not collectstatic cannot pass itself off as one.
    assert manage("check", "collectstatic", **common).returncode != 0


@pytest.mark.parametrize(
    "address",
    [
        POT.lower(),  # all lower case: a typo would not be caught
        "0x5FbDB2315678afecb367f032d93F642f64180aA3",  # one letter's case wrong
        "0x0000000000000000000000000000000000000000",
        "0x1234",
    ],
)
def test_a_pot_address_that_is_not_a_checksummed_contract_address_refuses_to_start(address):
    result = manage("check", POT_ADDRESS=address)
    assert result.returncode != 0
    assert "POT_ADDRESS must be the checksummed (EIP-55) address of the pot" in result.stderr


@pytest.mark.parametrize("key", ["0x1234", "not a key " * 7, "0x" + "00" * 32])
def test_a_malformed_operator_key_refuses_to_start_without_printing_it(key):
    result = manage("check", POT_OPERATOR_KEY=key)
    assert result.returncode != 0
    assert "POT_OPERATOR_KEY must be a private key" in result.stderr
    assert key not in result.stderr


def test_the_relayer_key_is_optional_and_a_key_of_its_own():
    """RELAYER_KEY empty: no relay (the page offers the stake by approval and "Send it yourself").
    Set: a well-formed key that is not the operator's (the relayer holds gas money only); never
    printed."""
    assert manage("check", drop=("RELAYER_KEY",)).returncode == 0
    assert manage("check", RELAYER_KEY="0x" + "7e" * 32).returncode == 0
    for key, problem in (
        ("0x1234", "RELAYER_KEY must be a private key"),
        (OPERATOR_KEY, "RELAYER_KEY must not be POT_OPERATOR_KEY"),
    ):
        result = manage("check", RELAYER_KEY=key)
        assert result.returncode != 0 and problem in result.stderr, result.stderr
        assert key not in result.stderr


def test_pot_deploy_alone_runs_before_the_pot_exists():
    """The one command run before POT_ADDRESS can be set: it gets past the settings (and fails only on
    the chain behind the made-up RPC URL); any other command still refuses."""
    result = manage(
        "pot_deploy",
        "--share-receiver",
        POT,
        "--sweep-receiver",
        POT,
        "--timeout",
        "1",
        drop=("POT_ADDRESS",),
        POT_DEPLOYER_KEY="0x" + "6d" * 32,
        CHAIN_RPC_TIMEOUT_SECONDS="1",
    )
    assert "Production settings refuse to start" not in result.stderr
    assert "No RPC node answered" in result.stderr, result.stderr
    assert "POT_ADDRESS is not set" in manage("migrate", drop=("POT_ADDRESS",)).stderr
