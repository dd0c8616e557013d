"""Settings of the end-to-end suite: production's, served over plain http on a loopback port.

Only what loopback http forces is relaxed (no TLS redirect, no Secure cookies, no HSTS); the
static files are collected into the suite's own folder and served by whitenoise from the manifest,
as in production."""

from config.settings.production import *  # noqa: F403
from config.settings.production import env

SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
STATIC_ROOT = env("E2E_STATIC_ROOT")
