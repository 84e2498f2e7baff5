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

from django.core.cache.backends.filebased import FileBasedCache


class SharedFileCache(FileBasedCache):
    """Django's file-based cache, with two costs taken off the hot path.

    Django lists the whole folder before every write to see whether it is
    full; here that is done on about one write in CULL_EVERY (the folder may
    then run over MAX_ENTRIES by a few files for a moment). Values are
    compressed at zlib's fastest level: a 30 KB page in well under 0.1 ms.
    """

    CULL_EVERY = 64

    def _cull(self):
        if random.randrange(self.CULL_EVERY) == 0:
            super()._cull()

    def _write_content(self, file, timeout, value):
        expiry = self.get_backend_timeout(timeout)
        file.write(pickle.dumps(expiry, self.pickle_protocol))
        file.write(zlib.compress(pickle.dumps(value, self.pickle_protocol), 1))

    def _createdir(self):
        if not os.path.isdir(self._dir):
            super()._createdir()
