"""The production settings, plus one URL the benchmark measures against.

`bench/urls.py` adds a baseline view to the app's URLs; nothing else changes,
so every figure of `make bench` is taken through the production middleware,
templates and database options. Static files are collected under bench/out/
(git-ignored) so a benchmark run does not touch the app's staticfiles/.
"""

import os

from tracker.settings import *  # noqa: F403
from tracker.settings import BASE_DIR

ROOT_URLCONF = "bench.urls"
STATIC_ROOT = BASE_DIR / "bench" / "out" / "staticfiles"

# `BENCH_FRESH=1` (bench/run.py's second server, for fresh-fragment and
# fresh-page): a rendered page is never found in the cache, so every request
# renders as the first one after a save does. Everything else is as above,
# the replayed state of the revision included, as the save leaves it.
if os.environ.get("BENCH_FRESH") == "1":
    CACHES = {"default": {**CACHES["default"], "BACKEND": "bench.fresh.NoPagesFound"}}  # noqa: F405
