"""The cache of bench/run.py's fresh server: no rendered page is ever found.

Every request for a game page or live fragment then renders it, as the first
request for a revision does after a save, while the rest of the cache (the
replayed state a save leaves for its revision) works as in production. The
page is still written to the cache, so that cost counts too.
"""

from tracker.cache import SharedFileCache

PAGE_KEYS = "game-html:"  # tracker/views.py: _cached_game_part


STATE_KEYS = "game-state:"  # tracker/views.py: _keep_state, a step kept beside the state


class NoPagesFound(SharedFileCache):
    def get(self, key, default=None, version=None):
        if key.startswith(PAGE_KEYS):
            return default
        value = super().get(key, default, version)
        if key.startswith(STATE_KEYS) and isinstance(value, tuple):
            return value[0]  # the state without the steps kept beside it
        return value
