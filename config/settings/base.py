"""Settings shared by every environment. Values come from the environment (12-factor);
nothing here is permissive: DEBUG is off and there is no default SECRET_KEY."""

from datetime import timedelta
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
# (config/client_ip.py); the stake throttle, the admin lockout and the request log all use it (the
# throttle and the lockout count an IPv6 client by its /64).
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
# client (an IPv6 client's whole /64), that client is locked out for AXES_COOLOFF_MINUTES, and after
# AXES_FAILURE_LIMIT failures on one user name, from any number of addresses, that user name is
# (a success resets both counts).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
# Each alone, not the pair: [["username", "ip_address"]] would count one (name, address) pair and
# let an attacker with many addresses guess one staff password without limit. The price: a stranger
# can lock a staff name out for the cool-off; `manage.py axes_reset_username NAME` clears it.
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
# The address is the client's behind the trusted proxies, never a client-written X-Forwarded-For
# entry; the lockout answer names no user and carries no CORS header (config/admin_lockout.py).
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_key"
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
if DATABASES["default"].get("ENGINE") == "django.db.backends.sqlite3":
    # The embedded database of `make run`: the web process, the worker and beat write at once (a
    # player's stakes, the follower every half second, the relayer). WAL lets readers go on beside
    # the one writer, IMMEDIATE takes the write lock when a transaction starts (a read lock upgraded
    # later is what failed as "database is locked"), and a writer waits up to 20 s for its turn.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
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

# /healthz shares each part's answer (database, broker, chain) for this many seconds per process, so
# that a flood of anonymous probes costs little; a part that breaks is reported at most this late
# (config/health.py).
HEALTHZ_CACHE_SECONDS = env.float("HEALTHZ_CACHE_SECONDS", default=5.0)

# --- Cache and broker -------------------------------------------------------------------------
# Redis serves both when REDIS_URL is set. Without it the local run uses a file cache (shared by
# every process, so the throttle holds across gunicorn workers) and kombu's filesystem transport.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    # Timeouts on every Redis socket: a Redis that accepts but never answers must not hang a stake
    # POST (its enqueue and its throttle read); the stake is stored and chain.relay_watch sends it.
    _REDIS_SOCKET_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 2}
    # TLS Redis (rediss://). Heroku Redis presents a self-signed certificate, so its deploys set
    # REDIS_SSL_CERT_REQS=none (app.json); anything else keeps the default: verify it.
    _REDIS_TLS = (
        {"ssl_cert_reqs": env("REDIS_SSL_CERT_REQS", default="required")} if REDIS_URL.startswith("rediss://") else {}
    )
    CACHES = {
        "default": {
            # Django's Redis backend, keeping its client (config/redis_cache.py).
            "BACKEND": "config.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {**_REDIS_SOCKET_OPTIONS, **_REDIS_TLS},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600, **_REDIS_SOCKET_OPTIONS}
    CELERY_BROKER_USE_SSL = _REDIS_TLS or None
    # Give up publishing after two quick retries: chain.relay_watch sends what stayed queued.
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
    },
}

# A JSON API body never needs more than this; larger bodies answer 413.
API_MAX_BODY_BYTES = 16 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # Django's default; the admin keeps it.

# --- Game and chain: config/settings/chain.py -------------------------------------------------
# Imported here, after `.env` was read above; the CSP below allows the public RPC node's origin.
from .chain import *  # noqa: E402, F403
from .chain import CHAIN_PUBLIC_RPC_URL  # noqa: E402

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

# An error tracker for the web process and the worker, when the operator names one (Sentry's DSN);
# nothing is sent without it, and every event is redacted as the logs are (config/error_tracking.py).
SENTRY_DSN = env("SENTRY_DSN", default="")
SENTRY_ENVIRONMENT = env("SENTRY_ENVIRONMENT", default=f"chain-{CHAIN_ID}")  # noqa: F405
from config.error_tracking import error_tracking_init  # noqa: E402

error_tracking_init(SENTRY_DSN, environment=SENTRY_ENVIRONMENT)
