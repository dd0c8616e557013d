"""config.settings.production, unchanged but for where the built bundle is read from: a snapshot
copied by the test, so the shared working tree's front-end rebuilds cannot change files under a
running test server. Every security setting is production's own."""

import os

from config.settings.production import *  # noqa: F403
from config.settings.production import WEBPACK_LOADER

WEBPACK_LOADER["DEFAULT"]["STATS_FILE"] = os.environ["RELIABILITY_WEBPACK_STATS"]
STATICFILES_DIRS = [os.environ["RELIABILITY_BUNDLE_DIR"]]
