"""Settings of the end-to-end suite: production's, served over plain http on a loopback port.

Only what loopback http forces is relaxed (no TLS redirect, no Secure cookies, no HSTS); the
static files are collected into the suite's own folder and served by whitenoise from the manifest,
as in production. The bundle is the suite's own build of the current source (e2e/webpack.e2e.mjs,
in E2E_BUILD_DIR), not the shared frontend/build, which may be older than the source."""

from pathlib import Path

from config.settings.production import *  # noqa: F403
from config.settings.production import STORAGES, WEBPACK_LOADER, env

SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
STATIC_ROOT = env("E2E_STATIC_ROOT")
# Hashed names and the manifest as in production, without the gzip/brotli copies: compressing every
# file was the slowest step of the suite's start (~25 s), and whitenoise serves the same bytes.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}}
_BUILD = Path(env("E2E_BUILD_DIR"))
STATICFILES_DIRS = [_BUILD / "build"]
WEBPACK_LOADER = {"DEFAULT": {**WEBPACK_LOADER["DEFAULT"], "STATS_FILE": _BUILD / "webpack-stats.json"}}
