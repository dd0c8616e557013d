"""The production settings plus one URL: the floor the API benchmark compares against.

Why a settings module and not a flag in production: nothing a production environment can set turns
the floor view on; only `DJANGO_SETTINGS_MODULE=bench.settings` (used by bench/run.py alone) does.
Everything else (middleware, cache, database, gunicorn) is exactly what production runs.
BENCH_NO_CACHE=1 swaps the cache for a dummy one, to show what the public-answer cache is worth;
BENCH_WEBPACK_STATS / BENCH_BUNDLE_DIR point at a snapshot of the built bundle."""

from config.settings.production import *  # noqa: F403
from config.settings.production import WEBPACK_LOADER, env

ROOT_URLCONF = "bench.urls"

if env.bool("BENCH_NO_CACHE", default=False):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}

# The built bundle is read from a snapshot (bench.common.snapshot_bundle) when one is given, so a
# rebuild in the shared working tree cannot change files under a running benchmark server.
if env("BENCH_WEBPACK_STATS", default=""):
    WEBPACK_LOADER["DEFAULT"]["STATS_FILE"] = env("BENCH_WEBPACK_STATS")
    STATICFILES_DIRS = [env("BENCH_BUNDLE_DIR")]
