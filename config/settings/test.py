"""The test run: what `make test` uses. PostgreSQL when DATABASE_URL says so, else SQLite."""

from .base import *  # noqa: F403
from .base import REDIS_URL, env

SECRET_KEY = "test-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Each test gets a clean cache (throttle counters included); the broker is in memory unless an
# integration test brings Redis and a real worker.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if not REDIS_URL:
    CELERY_BROKER_URL = "memory://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {}

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CHAIN_RPC_URLS = env.list("CHAIN_RPC_URLS", default=["http://127.0.0.1:9"])
# A made-up pot for the tests without a chain (conftest.py records its events); chain/tests/ point
# this at the pot they deploy on anvil.
POT_ADDRESS = env("POT_ADDRESS", default="0x9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a")
