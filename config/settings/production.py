"""Production: everything comes from the environment and nothing falls back to an embedded default.

The process refuses to start (ImproperlyConfigured, one message naming every missing or unsafe
variable) unless the environment names its database, Redis, chain, pot and operator key and gives a
SECRET_KEY that Django's own deploy check would accept. No SQLite, no file cache, no filesystem broker,
no chain the operator did not name.

One exception, for the build: the Python buildpack runs `manage.py collectstatic --noinput` while the
slug is built, when the add-on URLs may be set but not every config var. That command only copies
and compresses static files, so for it alone the missing values are tolerated and replaced by parts
that cannot serve anything (a database engine that refuses every query, a dummy cache, no broker).
Every other command (check, migrate, shell, gunicorn, celery) demands everything.
See docs/decisions.md, "Build-time collectstatic". Likewise `manage.py pot_deploy` runs without
POT_ADDRESS: it deploys the pot whose address that setting then names."""

import secrets
import sys
from pathlib import Path

from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)
from django.core.exceptions import ImproperlyConfigured
from eth_utils import is_checksum_address, is_hex_address

from .base import *  # noqa: F403
from .base import CELERY_BROKER_URL, DATABASES, REDIS_URL, env

# Circle's USDC on Sepolia: the default USDC_ADDRESS is right on that chain only.
SEPOLIA_CHAIN_ID = 11155111
ZERO_ADDRESS = "0x" + "0" * 40


def _is_collectstatic_build() -> bool:
    """True in `manage.py collectstatic` (the buildpack's build step) and nowhere else."""
    return len(sys.argv) > 1 and Path(sys.argv[0]).name == "manage.py" and sys.argv[1] == "collectstatic"


def _is_pot_deploy() -> bool:
    """True in `manage.py pot_deploy`, the one command run before the pot exists."""
    return len(sys.argv) > 1 and Path(sys.argv[0]).name == "manage.py" and sys.argv[1] == "pot_deploy"


def _secret_key_problem(key: str) -> str | None:
    """Django's check_secret_key (security.W009) logic, as a reason to refuse rather than a warning."""
    if not key:
        return "SECRET_KEY is not set"
    if (
        len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
        or len(key) < SECRET_KEY_MIN_LENGTH
        or key.startswith(SECRET_KEY_INSECURE_PREFIX)
    ):
        return (
            f"SECRET_KEY is insecure (it needs at least {SECRET_KEY_MIN_LENGTH} characters, "
            f"{SECRET_KEY_MIN_UNIQUE_CHARACTERS} of them different, and no '{SECRET_KEY_INSECURE_PREFIX}' prefix; "
            "generate one with `python -c 'import secrets; print(secrets.token_urlsafe(50))'`)"
        )
    return None


def _pot_problem(address: str) -> str | None:
    if not address:
        return "POT_ADDRESS is not set (deploy the pot: manage.py pot_deploy, then pin it: docs/protocol.md section 2)"
    if not is_hex_address(address) or not is_checksum_address(address) or address.lower() == ZERO_ADDRESS:
        return "POT_ADDRESS must be the checksummed (EIP-55) address of the pot"
    return None


def _key_address(key: str) -> str | None:
    try:
        from eth_account import Account

        return Account.from_key(key).address
    except Exception:  # noqa: BLE001 - any malformed key; its text must not reach the message
        return None


def _operator_key_problem(key: str) -> str | None:
    """The key is never printed: only what is wrong with it."""
    if not key:
        return "POT_OPERATOR_KEY is not set (the private key that owns the pot: it opens challenges and pays their gas)"
    if _key_address(key) is None:
        return "POT_OPERATOR_KEY must be a private key: 0x and 64 hex characters"
    return None


def _relayer_key_problem(key: str, operator_key: str) -> str | None:
    """RELAYER_KEY is optional (without it no signed stake is relayed and no step of the game is sent
    by the site: anyone may still send them, docs/protocol.md section 2); when set it must be a key of
    its own, gas money only (a leaked relayer key then costs its ETH, nothing else). Never printed."""
    if not key:
        return None
    address = _key_address(key)
    if address is None:
        return "RELAYER_KEY must be a private key: 0x and 64 hex characters (or empty: no relay)"
    operator = _key_address(operator_key) if operator_key else None
    if operator is not None and address.lower() == operator.lower():
        return "RELAYER_KEY must not be POT_OPERATOR_KEY: give the relayer a key of its own"
    return None


def _backing_services_problems() -> list[str]:
    """base.py falls back to SQLite, a file cache and a filesystem broker when a URL is missing (the
    missing URL is reported on its own); a URL that is set must still name PostgreSQL and Redis."""
    problems: list[str] = []
    if env.str("DATABASE_URL", default="").strip() and DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        problems.append("DATABASE_URL must name a PostgreSQL database, not SQLite")
    redis_url = REDIS_URL.strip()
    if redis_url and not redis_url.startswith(("redis://", "rediss://")):
        problems.append("REDIS_URL must be a redis:// or rediss:// URL (Redis is the cache and the Celery broker)")
    elif redis_url and CELERY_BROKER_URL != REDIS_URL:
        problems.append("REDIS_URL must be the Celery broker too (config/settings/base.py sets another)")
    return problems


def _problems() -> list[str]:
    problems: list[str] = []
    for name in ("ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL", "CHAIN_RPC_URLS", "CHAIN_ID"):
        if not env.str(name, default="").strip():
            problems.append(f"{name} is not set")
    if (problem := _secret_key_problem(env.str("SECRET_KEY", default=""))) is not None:
        problems.append(problem)
    # The pot (docs/protocol.md section 2): without it no challenge could open.
    pot = env.str("POT_ADDRESS", default="").strip()
    if (problem := _pot_problem(pot)) is not None and not (_is_pot_deploy() and not pot):
        problems.append(problem)
    key = env.str("POT_OPERATOR_KEY", default="").strip()
    if (problem := _operator_key_problem(key)) is not None:
        problems.append(problem)
    relayer_key = env.str("RELAYER_KEY", default="").strip()
    if (problem := _relayer_key_problem(relayer_key, key)) is not None:
        problems.append(problem)
    problems.extend(_backing_services_problems())
    chain_id = env.str("CHAIN_ID", default="").strip()
    if chain_id and not chain_id.isdigit():
        problems.append("CHAIN_ID must be a whole number")
    elif chain_id and int(chain_id) != SEPOLIA_CHAIN_ID and not env.str("USDC_ADDRESS", default=""):
        problems.append(f"USDC_ADDRESS is not set (the default is Circle's USDC on Sepolia, chain {SEPOLIA_CHAIN_ID})")
    return problems


BUILD_ONLY = _is_collectstatic_build()
_PROBLEMS = _problems()
if _PROBLEMS and not BUILD_ONLY:
    raise ImproperlyConfigured(
        "Production settings refuse to start: "
        + "; ".join(_PROBLEMS)
        + ". Set them in the environment (README, 'Deploy'; app.json lists every config var)."
    )

DEBUG = False
if BUILD_ONLY and _PROBLEMS:
    # collectstatic during the build: nothing below is used to serve anything.
    SECRET_KEY = env.str("SECRET_KEY", default="") or secrets.token_urlsafe(50)
    ALLOWED_HOSTS = []
    DATABASES = {"default": {"ENGINE": "django.db.backends.dummy"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    CELERY_BROKER_URL = None
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
else:
    SECRET_KEY = env.str("SECRET_KEY")
    ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
    # Each gunicorn thread (Procfile: gthread) keeps its connection across requests instead of opening
    # one per request, which cost a stake's POST about a quarter of its CPU (docs/performance.md, section 2); a
    # connection broken meanwhile (a database restart) is found and replaced at the next request.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# Load balancers probe /healthz over plain HTTP on the private network; a 301 would read as down.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The page reads the CSRF cookie to send X-CSRFToken, so it must not be HttpOnly.
CSRF_COOKIE_HTTPONLY = False
