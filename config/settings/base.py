"""Settings shared by every environment. Values come from the environment (12-factor);
nothing here is permissive: DEBUG is off and there is no default SECRET_KEY."""

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONCE, NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# How many proxies in front of gunicorn append to X-Forwarded-For: 1 behind a Heroku-style router,
# 0 when clients connect to gunicorn directly. The client is the Nth address from the right
# (config/client_ip.py); the claim throttle, the admin lockout and the request log all use it.
TRUSTED_PROXY_HOPS = env.int("TRUSTED_PROXY_HOPS", default=0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "webpack_loader",
    "axes",
    "csp",
    "challenges",
    "responses",
    "chain",
]

MIDDLEWARE = [
    "config.request_log.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.ApiBodySizeLimitMiddleware",
    "config.middleware.ApiBodyCharsetMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

# --- Staff admin --------------------------------------------------------------------------------
# The admin's path, e.g. "staff-7f3a/": not guessable from the outside. Always ends with "/".
ADMIN_URL = env("ADMIN_URL", default="admin/").strip("/") + "/"
# django-axes throttles admin logins against guessing: after AXES_FAILURE_LIMIT failures from one
# IP address, that address is locked out for AXES_COOLOFF_MINUTES (a success resets the count).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
# The address is the client's behind the trusted proxies, never a client-written X-Forwarded-For
# entry; the lockout answer names no user and carries no CORS header (config/admin_lockout.py).
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"
AXES_LOCKOUT_CALLABLE = "config.admin_lockout.lockout_response"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite under var/ is the embedded default; DATABASE_URL selects PostgreSQL.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'geopoem.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# collectstatic writes here; a test or a build step may point it elsewhere.
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
# The webpack bundle is built into frontend/build (ignored) and collected from there.
STATICFILES_DIRS = [BASE_DIR / "frontend" / "build"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

WEBPACK_LOADER = {
    "DEFAULT": {
        "STATS_FILE": BASE_DIR / "frontend" / "webpack-stats.json",
        "BUNDLE_DIR_NAME": "",
        "CACHE": not DEBUG,
    }
}

# --- Cache and broker -------------------------------------------------------------------------
# Redis serves both when REDIS_URL is set. Without it the local run uses a file cache (shared by
# every process, so the throttle holds across gunicorn workers) and kombu's filesystem transport.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    # Timeouts on every Redis socket: a Redis that accepts but never answers must not hang a claim
    # POST (its enqueue and its throttle read); the claim is stored and the sweeper re-queues it.
    _REDIS_SOCKET_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 2}
    # TLS Redis (rediss://). Heroku Redis presents a self-signed certificate, so its deploys set
    # REDIS_SSL_CERT_REQS=none (app.json); anything else keeps the default: verify it.
    _REDIS_TLS = (
        {"ssl_cert_reqs": env("REDIS_SSL_CERT_REQS", default="required")} if REDIS_URL.startswith("rediss://") else {}
    )
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {**_REDIS_SOCKET_OPTIONS, **_REDIS_TLS},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, **_REDIS_SOCKET_OPTIONS}
    CELERY_BROKER_USE_SSL = _REDIS_TLS or None
    # Give up publishing after two quick retries: the sweeper re-queues what was not sent.
    CELERY_TASK_PUBLISH_RETRY_POLICY = {
        "max_retries": 2,
        "interval_start": 0,
        "interval_step": 0.2,
        "interval_max": 0.5,
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }
    CELERY_BROKER_URL = "filesystem://"
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        # Without it kombu writes its exchange table to ./control, wherever the process started.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }

CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.NullableJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["responses.parsers.DecimalJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api_errors.api_exception_handler",
    # DRF's own client identity for any throttle that does not ask config/client_ip.py.
    "NUM_PROXIES": TRUSTED_PROXY_HOPS,
    "DEFAULT_THROTTLE_RATES": {"response_create": env("THROTTLE_RESPONSE_CREATE", default="20/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Geopoem API",
    "DESCRIPTION": "Poem-encoded location guesses with on-chain USDC stakes.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ChallengeStatusEnum": "challenges.models.ChallengeStatus",
        "ResponseStatusEnum": "responses.models.ResponseStatus",
    },
}

# A JSON API body never needs more than this; larger bodies answer 413.
API_MAX_BODY_BYTES = 16 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # Django's default; the admin keeps it.

# --- Game and chain -------------------------------------------------------------------------
STAKE_MIN = Decimal("1.00")
# The form's step (spec: "step 0.01"): a stake a player posts is a whole number of cents, refused
# otherwise by the form and by the API alike (docs/decisions.md, "Stake step").
STAKE_STEP = Decimal("0.01")
STAKE_MAX = Decimal(env.str("STAKE_MAX", default="1000000"))
TOKEN_DECIMALS = 6

CHAIN_ID = env.int("CHAIN_ID", default=11155111)
CHAIN_NAME = env("CHAIN_NAME", default="Sepolia")
CHAIN_CURRENCY_NAME = env("CHAIN_CURRENCY_NAME", default="SepoliaETH")
CHAIN_CURRENCY_SYMBOL = env("CHAIN_CURRENCY_SYMBOL", default="SepoliaETH")
CHAIN_RPC_URLS = env.list("CHAIN_RPC_URLS", default=["https://ethereum-sepolia-rpc.publicnode.com"])
CHAIN_PUBLIC_RPC_URL = env("CHAIN_PUBLIC_RPC_URL", default="https://rpc.sepolia.org")
# The block explorer the page links transactions and addresses to: by default the public one of
# the configured chain, and none for a chain no public explorer knows (anvil's 31337): the page then
# shows hashes and addresses as text rather than links to where the transaction does not exist.
# Set it to a local explorer (an Otterscan or Blockscout beside anvil) to get links back.
PUBLIC_EXPLORERS = {1: "https://etherscan.io", 11155111: "https://sepolia.etherscan.io"}
CHAIN_EXPLORER_URL = env("CHAIN_EXPLORER_URL", default=PUBLIC_EXPLORERS.get(CHAIN_ID, ""))
# A development chain on the player's own machine (anvil, Hardhat): the "Sepolia Testnet" tab then
# explains the local MetaMask set-up instead of Sepolia's faucets.
CHAIN_IS_LOCAL = env.bool("CHAIN_IS_LOCAL", default=CHAIN_ID in (1337, 31337))
CHAIN_RPC_TIMEOUT_SECONDS = env.float("CHAIN_RPC_TIMEOUT_SECONDS", default=10.0)
# The check of a claim against its transaction while the POST waits (chain/checks.py, claim_check_at_post):
# one RPC call per node with this timeout; a node that does not answer in time leaves the claim pending.
CHAIN_POST_CHECK_TIMEOUT_SECONDS = env.float("CHAIN_POST_CHECK_TIMEOUT_SECONDS", default=2.0)
USDC_ADDRESS = env("USDC_ADDRESS", default="0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238")
TREASURY_ADDRESS = env("TREASURY_ADDRESS", default="0x0000000000000000000000000000000000000000")
# Where the 20 % operations share is sent; empty keeps it in the treasury (nothing to send).
OPERATIONS_ADDRESS = env("OPERATIONS_ADDRESS", default="")
# A whole number of blocks, or "finalized".
CHAIN_CONFIRMATIONS = env("CHAIN_CONFIRMATIONS", default="2")
# Verification (chain app). A claim whose transaction no node knows stays pending, retried with
# exponential backoff and jitter, and becomes `not_found` only after CHAIN_NOT_FOUND_TIMEOUT_SECONDS.
# A confirmed claim whose block left the chain gets CHAIN_REORG_TIMEOUT_SECONDS for its transaction to
# return before it ends `reorged`. Retry countdowns stay far under the broker's visibility timeout.
CHAIN_NOT_FOUND_TIMEOUT_SECONDS = env.int("CHAIN_NOT_FOUND_TIMEOUT_SECONDS", default=1800)
CHAIN_REORG_TIMEOUT_SECONDS = env.int("CHAIN_REORG_TIMEOUT_SECONDS", default=900)
CHAIN_VERIFY_RETRY_BASE_SECONDS = env.float("CHAIN_VERIFY_RETRY_BASE_SECONDS", default=2.0)
CHAIN_VERIFY_RETRY_MAX_SECONDS = env.float("CHAIN_VERIFY_RETRY_MAX_SECONDS", default=60.0)
CHAIN_VERIFY_MAX_RETRIES = env.int("CHAIN_VERIFY_MAX_RETRIES", default=500)
# Beat: the sweeper re-queues claims pending longer than CHAIN_SWEEP_STALE_SECONDS without a check;
# the indexer reads Transfer logs to the treasury in ranges of CHAIN_INDEX_MAX_BLOCKS from a stored
# cursor (starting at CHAIN_INDEX_START_BLOCK, or near the head when 0) and rescans the last
# CHAIN_REORG_DEPTH_BLOCKS; confirmed claims that deep are re-checked for reorgs.
CHAIN_SWEEP_INTERVAL_SECONDS = env.float("CHAIN_SWEEP_INTERVAL_SECONDS", default=30.0)
CHAIN_SWEEP_STALE_SECONDS = env.float("CHAIN_SWEEP_STALE_SECONDS", default=120.0)
CHAIN_INDEX_INTERVAL_SECONDS = env.float("CHAIN_INDEX_INTERVAL_SECONDS", default=15.0)
CHAIN_INDEX_MAX_BLOCKS = env.int("CHAIN_INDEX_MAX_BLOCKS", default=500)
CHAIN_INDEX_START_BLOCK = env.int("CHAIN_INDEX_START_BLOCK", default=0)
CHAIN_REORG_DEPTH_BLOCKS = env.int("CHAIN_REORG_DEPTH_BLOCKS", default=64)
# The head watcher (docs/chain.md "Verification driven by blocks"): every CHAIN_HEAD_INTERVAL_SECONDS
# the beat asks for the head; when it moved, every pending claim (up to CHAIN_HEAD_MAX_CLAIMS, oldest
# check first) is re-checked from JSON-RPC batches of at most CHAIN_RPC_BATCH_SIZE calls.
# RPC cost: one eth_blockNumber per interval whether or not anything is pending (2/s = 172,800 a day at
# the default 0.5 s; 1 s halves it), plus one batch per new block while claims are pending. A claim is
# confirmed up to one interval after the block that makes it deep enough: at 1 s the page showed it
# p95 2.04 s after that block, at 0.5 s 0.96 s (the goal: 1.5 s, docs/performance.md section 5).
CHAIN_HEAD_INTERVAL_SECONDS = env.float("CHAIN_HEAD_INTERVAL_SECONDS", default=0.5)
CHAIN_HEAD_MAX_CLAIMS = env.int("CHAIN_HEAD_MAX_CLAIMS", default=1000)
CHAIN_RPC_BATCH_SIZE = env.int("CHAIN_RPC_BATCH_SIZE", default=100)
# The terms on chain (docs/protocol.md section 6): the registry contract every published challenge's
# terms are anchored in before it accepts claims, and the operator key that owns it and pays the gas
# (it holds only gas money, never USDC; it is not the treasury). Both empty: no challenge can open,
# except a demonstration one. The worker re-sends an anchor whose transaction no node knows after
# ANCHOR_RESEND_SECONDS, and while one waits for its depth it looks again every ANCHOR_POLL_SECONDS
# (the beat's sweep, every CHAIN_SWEEP_INTERVAL_SECONDS, picks up an anchor whose task was lost).
ANCHOR_REGISTRY_ADDRESS = env("ANCHOR_REGISTRY_ADDRESS", default="")
ANCHOR_OPERATOR_KEY = env("ANCHOR_OPERATOR_KEY", default="")
ANCHOR_RESEND_SECONDS = env.float("ANCHOR_RESEND_SECONDS", default=180.0)
ANCHOR_POLL_SECONDS = env.float("ANCHOR_POLL_SECONDS", default=1.0)

# Resolution runs in the worker in chunks of this many responses (one UPDATE each, and one step of
# the admin's progress); a resolution with no progress for CHALLENGE_RESOLVE_STALE_SECONDS is queued
# again by the beat (its worker died): it resumes at the last committed chunk.
CHALLENGE_RESOLVE_CHUNK = env.int("CHALLENGE_RESOLVE_CHUNK", default=100_000)
CHALLENGE_RESOLVE_STALE_SECONDS = env.float("CHALLENGE_RESOLVE_STALE_SECONDS", default=60.0)

# --- Public page content ----------------------------------------------------------------------
SOCIAL_LINKS = env.dict(
    "SOCIAL_LINKS",
    default={
        "x": "https://x.com/geopoem",
        "instagram": "https://www.instagram.com/geopoem",
        "tiktok": "https://www.tiktok.com/@geopoem",
        "youtube": "https://www.youtube.com/@geopoem",
        "facebook": "https://www.facebook.com/geopoem",
        "linkedin": "https://www.linkedin.com/company/geopoem",
    },
)
VIDEO_IDS = env.list("VIDEO_IDS", default=["dQw4w9WgXcQ", "M7lc1UVf-VE"])
# Map tiles for the map feature; the Content-Security-Policy allows this URL's origin for images.
MAP_TILES_URL = env("MAP_TILES_URL", default="https://tile.openstreetmap.org/{z}/{x}/{y}.png")
# Shown in the map's corner, as the tile provider requires; HTML (a link), set by staff, never by players.
MAP_ATTRIBUTION = env(
    "MAP_ATTRIBUTION",
    default='&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
)

# --- Content-Security-Policy (django-csp) -----------------------------------------------------------
# The bundle is built by webpack into files served from 'self': no inline script anywhere. The
# page's public config is a <script type="application/json"> data block, which browsers never
# execute, so script-src does not apply to it. Only the origins the page needs are listed:
# YouTube's embed origins when there are videos, the map tiles' origin for images, the public RPC
# node's for the in-page verifier.
# style-src carries a per-request nonce (never 'unsafe-inline'): Radix Dialog's scroll lock and
# Radix Select inject a <style> element, which the page gives the nonce it reads from
# <meta property="csp-nonce"> (templates/index.html, frontend/src/lib/csp-nonce.ts).
_VIDEO_EMBED_ORIGINS = ["https://www.youtube-nocookie.com", "https://www.youtube.com"] if VIDEO_IDS else []
# The videos' thumbnail host: the Getting Started tab loads one image to learn whether YouTube can be
# reached, and shows a link instead of a broken player when it cannot.
_VIDEO_THUMB_ORIGINS = ["https://i.ytimg.com"] if VIDEO_IDS else []
_tiles = urlsplit(MAP_TILES_URL)
_TILE_ORIGINS = [f"{_tiles.scheme}://{_tiles.netloc}"] if _tiles.scheme and _tiles.netloc else []
# "Verify every outcome" reads the chain from the page through the public RPC node (docs/protocol.md
# section 5): its origin is the one other place the page connects to.
_rpc = urlsplit(CHAIN_PUBLIC_RPC_URL)
_RPC_ORIGINS = [f"{_rpc.scheme}://{_rpc.netloc}"] if _rpc.scheme in ("http", "https") and _rpc.netloc else []
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:", *_TILE_ORIGINS, *_VIDEO_THUMB_ORIGINS],
        "font-src": [SELF],
        "connect-src": [SELF, *_TILE_ORIGINS, *_RPC_ORIGINS],
        "frame-src": _VIDEO_EMBED_ORIGINS or [NONE],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Every line passes through the redacting formatter: no secret setting, salt or key is printed.
    "formatters": {
        "plain": {
            "()": "config.log_redaction.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
# The worker logs through LOGGING above (and so through the redacting formatter), not Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Celery beat (chain app) --------------------------------------------------------------------
# Intervals in seconds; each task is short and idempotent, so an overlap or a missed beat is harmless.
CELERY_BEAT_SCHEDULE = {
    "chain-sweep-pending": {"task": "chain.sweep_pending", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # Expires after two intervals: a watcher message that waited behind other tasks is dropped, not
    # run late in a pile (the next beat's message asks for the head anyway).
    "chain-watch-head": {
        "task": "chain.watch_head",
        "schedule": CHAIN_HEAD_INTERVAL_SECONDS,
        "options": {"expires": 2 * CHAIN_HEAD_INTERVAL_SECONDS},
    },
    "chain-index-payments": {"task": "chain.index_payments", "schedule": CHAIN_INDEX_INTERVAL_SECONDS},
    "chain-recheck-confirmed": {"task": "chain.recheck_confirmed", "schedule": CHAIN_INDEX_INTERVAL_SECONDS},
    # Anchors left queued or sent by a lost message or a dead worker are queued again (chain/tasks.py).
    "chain-sweep-anchors": {"task": "chain.sweep_anchors", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # Payout transactions left verifying by a lost message are queued again (chain/tasks.py).
    "chain-sweep-payouts": {"task": "chain.sweep_payouts", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # Resolutions whose worker died are resumed (responses/tasks.py).
    "responses-sweep-resolutions": {
        "task": "responses.sweep_resolutions",
        "schedule": CHAIN_SWEEP_INTERVAL_SECONDS,
    },
}
