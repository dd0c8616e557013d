"""The local run (`make run`): debug on, an insecure development key, loopback hosts only."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="local-development-only-not-a-secret")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
WEBPACK_LOADER["DEFAULT"]["CACHE"] = False  # noqa: F405
# Serve the bundle straight from frontend/build while developing.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
