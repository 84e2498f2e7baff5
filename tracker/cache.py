"""The cache every gunicorn worker shares: rendered game parts and replayed states.

The default is Django's file-based cache in a folder the app owns (`var/cache/`),
so a home server needs nothing more; CACHE_URL (or REDIS_URL) switches to Redis
through Django's own backend for several servers (tracker/settings.py).

Everything kept is keyed by a game's revision, which changes with every change
to its history, so an entry is never stale: a new revision simply misses.
"""

import os
import pickle
import random
import zlib
from collections import OrderedDict

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache

PAGES = "game-html:"  # the rendered pages of tracker/views.py: strings, never changed


class SharedFileCache(FileBasedCache):
    """Django's file-based cache, with three costs taken off the hot path.

    Django lists the whole folder before every write to see whether it is
    full; here that is done on about one write in CULL_EVERY (the folder may
    then run over MAX_ENTRIES by a few files for a moment). Values are
    compressed at zlib's fastest level: a 30 KB page in well under 0.1 ms.
    And the pages a worker read or wrote last are also kept in its memory
    (LOCAL_PAGES of them): a page is keyed by its revision and never changes,
    so a copy cannot go stale, and a poll that finds it reads no file.
    """

    CULL_EVERY = 64
    LOCAL_PAGES = 256

    def __init__(self, dir, params):
        super().__init__(dir, params)
        self._pages = OrderedDict()
        self._last_packed = (None, b"")  # (a str or bytes value, its file content)

    def get(self, key, default=None, version=None):
        if key.startswith(PAGES):
            local = self._pages.get((key, version))
            if local is not None:
                self._pages.move_to_end((key, version))
                return local
        value = super().get(key, default, version)
        if value is not default and key.startswith(PAGES):
            self._keep_page(key, version, value)
        return value

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        super().set(key, value, timeout, version)
        if key.startswith(PAGES):
            self._keep_page(key, version, value)

    def delete(self, key, version=None):
        self._pages.pop((key, version), None)
        return super().delete(key, version)

    def clear(self):
        self._pages.clear()
        super().clear()

    def _keep_page(self, key, version, value):
        self._pages[(key, version)] = value
        self._pages.move_to_end((key, version))
        while len(self._pages) > self.LOCAL_PAGES:
            self._pages.popitem(last=False)

    def _cull(self):
        if random.randrange(self.CULL_EVERY) == 0:
            super()._cull()

    def _write_content(self, file, timeout, value):
        expiry = self.get_backend_timeout(timeout)
        file.write(pickle.dumps(expiry, self.pickle_protocol))
        file.write(self._packed(value))

    def _packed(self, value):
        """The value pickled and compressed. The same str or bytes written again
        at once (a state kept under both links' keys, `views._keep_state`) is
        compressed once: about 2 ms of a 1,000-deal state."""
        last, packed = self._last_packed
        if value is last:
            return packed
        packed = zlib.compress(pickle.dumps(value, self.pickle_protocol), 1)
        if isinstance(value, (bytes, str)):  # never changed in place
            self._last_packed = (value, packed)
        return packed

    def _createdir(self):
        if not os.path.isdir(self._dir):
            super()._createdir()
