"""The production settings, plus one URL the benchmark measures against.

`bench/urls.py` adds a baseline view to the app's URLs; nothing else changes,
so every figure of `make bench` is taken through the production middleware,
templates and database options.
"""

from tracker.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
