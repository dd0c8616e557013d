"""Production: everything comes from the environment and nothing falls back to an embedded default.

The process refuses to start (ImproperlyConfigured, one message naming every missing or unsafe
variable) unless the environment names its database, Redis, chain, treasury, terms registry and
operator key and gives a SECRET_KEY that Django's own deploy check would accept. No SQLite, no file cache, no filesystem
broker, no zero-address treasury, no chain the operator did not name.

One exception, for the build: the Python buildpack runs `manage.py collectstatic --noinput` while the
slug is built, when the add-on URLs may be set but not every config var. That command only copies
and compresses static files, so for it alone the missing values are tolerated and replaced by parts
that cannot serve anything (a database engine that refuses every query, a dummy cache, no broker).
Every other command (check, migrate, shell, gunicorn, celery) demands everything.
See docs/decisions.md, "Build-time collectstatic". Likewise `manage.py deploy_registry` runs without
ANCHOR_REGISTRY_ADDRESS: it deploys the registry whose address that setting then names."""

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


def _is_deploy_registry() -> bool:
    """True in `manage.py deploy_registry`, the one command run before the registry exists."""
    return len(sys.argv) > 1 and Path(sys.argv[0]).name == "manage.py" and sys.argv[1] == "deploy_registry"


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


def _treasury_problem(address: str) -> str | None:
    if not address:
        return "TREASURY_ADDRESS is not set"
    if not is_hex_address(address) or not is_checksum_address(address):
        return "TREASURY_ADDRESS must be a checksummed (EIP-55) address"
    if address.lower() == ZERO_ADDRESS:
        return "TREASURY_ADDRESS must not be the zero address"
    return None


def _registry_problem(address: str) -> str | None:
    if not address:
        return "ANCHOR_REGISTRY_ADDRESS is not set (deploy the terms registry: manage.py deploy_registry)"
    if not is_hex_address(address) or not is_checksum_address(address) or address.lower() == ZERO_ADDRESS:
        return "ANCHOR_REGISTRY_ADDRESS must be the checksummed (EIP-55) address of the terms registry"
    return None


def _operator_key_problem(key: str, treasury: str) -> str | None:
    """The key is never printed: only what is wrong with it."""
    if not key:
        return "ANCHOR_OPERATOR_KEY is not set (the private key that owns the terms registry and pays its gas)"
    try:
        from eth_account import Account

        address = Account.from_key(key).address
    except Exception:  # noqa: BLE001 - any malformed key; its text must not reach the message
        return "ANCHOR_OPERATOR_KEY must be a private key: 0x and 64 hex characters"
    if address.lower() == treasury.lower():
        return "ANCHOR_OPERATOR_KEY must not be the treasury's key (it holds gas money only, never USDC)"
    return None


def _relayer_key_problem(key: str, treasury: str, operator_key: str) -> str | None:
    """RELAYER_KEY is optional (without it nothing is relayed, docs/protocol.md section 2a); when
    set it must be a key of its own: gas money only, never the treasury's nor the operator's (a
    leaked relayer key then costs its ETH, nothing else). Never printed."""
    if not key:
        return None
    try:
        from eth_account import Account

        address = Account.from_key(key).address
    except Exception:  # noqa: BLE001 - any malformed key; its text must not reach the message
        return "RELAYER_KEY must be a private key: 0x and 64 hex characters (or empty: no relay)"
    if address.lower() == treasury.lower():
        return "RELAYER_KEY must not be the treasury's key (it holds gas money only, never USDC)"
    try:
        operator = Account.from_key(operator_key).address if operator_key else ""
    except Exception:  # noqa: BLE001 - reported by _operator_key_problem
        operator = ""
    if address.lower() == operator.lower():
        return "RELAYER_KEY must not be ANCHOR_OPERATOR_KEY: give the relayer a key of its own"
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
    if (problem := _treasury_problem(env.str("TREASURY_ADDRESS", default="").strip())) is not None:
        problems.append(problem)
    # The terms on chain (docs/protocol.md section 6): without them no challenge could open.
    registry = env.str("ANCHOR_REGISTRY_ADDRESS", default="").strip()
    if (problem := _registry_problem(registry)) is not None and not (_is_deploy_registry() and not registry):
        problems.append(problem)
    key = env.str("ANCHOR_OPERATOR_KEY", default="").strip()
    if (problem := _operator_key_problem(key, env.str("TREASURY_ADDRESS", default="").strip())) is not None:
        problems.append(problem)
    relayer_key = env.str("RELAYER_KEY", default="").strip()
    treasury = env.str("TREASURY_ADDRESS", default="").strip()
    if (problem := _relayer_key_problem(relayer_key, treasury, key)) is not None:
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
    # one per request, which cost a claim POST about a quarter of its CPU (docs/performance.md, section 6); a
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
