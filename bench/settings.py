"""The production settings, plus one URL the benchmark measures against.

`bench/urls.py` adds a baseline view to the app's URLs; nothing else changes,
so every figure of `make bench` is taken through the production middleware,
templates and database options. Static files are collected under bench/out/
(git-ignored) so a benchmark run does not touch the app's staticfiles/.
"""

from tracker.settings import *  # noqa: F403
from tracker.settings import BASE_DIR

ROOT_URLCONF = "bench.urls"
STATIC_ROOT = BASE_DIR / "bench" / "out" / "staticfiles"
