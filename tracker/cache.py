"""The cache every gunicorn worker shares: rendered game parts and replayed states.

The default is Django's file-based cache in a folder the app owns (`var/cache/`),
so a home server needs nothing more; CACHE_URL (or REDIS_URL) switches to Redis
through Django's own backend for several servers (tracker/settings.py).

Everything kept is keyed by a game's revision, which changes with every change
to its history, so an entry is never stale: a new revision simply misses.
"""

import io
import itertools
import os
import pickle
import threading
import time
import zlib
from collections import OrderedDict

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache

PAGES = "game-html:"  # the rendered pages of tracker/views.py: their bytes, never changed


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
_OLD_FILE = os.O_RDONLY | getattr(os, "O_BINARY", 0)

# This process's id, for the names of its temporary files: asked once, and again
# in a child forked from it (a system call less a write).
_pid = [os.getpid()]
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _pid.__setitem__(0, os.getpid()))


class SharedFileCache(FileBasedCache):
    """Django's file-based cache, with four costs taken off the hot path.

    Django lists the whole folder before every write to see whether it is
    full (6.6 ms at 5,000 files on the bench machine); here the files are
    counted only when the folder could be full: after a count of N files, a
    process counts again after (MAX_ENTRIES - N) / SHARERS of its own writes,
    and at least CULL_EVERY (the folder may then run over MAX_ENTRIES by a
    few files for a moment). Pages and small
    values are written as a plain pickle; only values of COMPRESS_FROM bytes
    or more are compressed, at zlib's fastest level (`_packed`). A write is
    one file made, written and renamed, with nothing around it (`set`). And
    the pages a worker read or wrote last are also kept in its memory
    (LOCAL_PAGES of them): a page is keyed by its revision and never changes,
    so a copy cannot go stale, and a poll that finds it reads no file.
    """

    CULL_EVERY = 64
    SHARERS = 8  # processes that may write at once: `make run`'s workers, and some
    LOCAL_PAGES = 256
    COMPRESS_FROM = 64 * 1024
    _missing = object()

    def __init__(self, dir, params):
        super().__init__(dir, params)
        self._written = itertools.count()
        self._count_in = 1  # writes before the files are counted: the first one
        self._pages = OrderedDict()
        self._last_packed = (None, b"")  # (a str or bytes value, its file content)

    def get(self, key, default=None, version=None):
        if key.startswith(PAGES):
            local = self._pages.get((key, version))
            if local is not None:
                self._pages.move_to_end((key, version))
                return local
        value = self._read(key, default, version)
        if value is not default and key.startswith(PAGES):
            self._keep_page(key, version, value)
        return value

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """As Django's `set` (a whole file written beside the entry, then renamed
        over it, so a reader never sees half a value), with less around it: the
        temporary file is named by the process, thread and a count instead of
        by `tempfile.mkstemp`, written with one `os.write`, and moved with one
        `os.replace`, not Django's `file_move_safe` (which first compares the
        two files). The folder is made again only if a write finds it gone."""
        fname = self._key_to_file(key, version)
        self._cull()
        content = pickle.dumps(self.get_backend_timeout(timeout), self.pickle_protocol)
        content += self._packed(value, key.startswith(PAGES))
        tmp = f"{fname}.{_pid[0]}-{threading.get_ident()}-{next(self._written)}.tmp"
        try:
            fd = os.open(tmp, _NEW_FILE, 0o600)
        except FileNotFoundError:  # the folder was deleted
            super()._createdir()
            fd = os.open(tmp, _NEW_FILE, 0o600)
        try:
            try:
                with memoryview(content) as left:
                    while left:
                        left = left[os.write(fd, left) :]
            finally:
                os.close(fd)
            os.replace(tmp, fname)
        except BaseException:
            os.remove(tmp)
            raise
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
        self._count_in -= 1
        if self._count_in > 0:
            return
        files = self._count_files()
        if files >= self._max_entries:
            super()._cull()  # lists the files and deletes a random 1/CULL_FREQUENCY
            files -= files // self._cull_frequency if self._cull_frequency else files
        self._count_in = max(self.CULL_EVERY, (self._max_entries - files) // self.SHARERS)

    def _count_files(self):
        try:
            with os.scandir(self._dir) as entries:
                return sum(1 for e in entries if e.name.endswith(self.cache_suffix))
        except FileNotFoundError:
            return 0

    def _packed(self, value, page=False):
        """The value pickled, and compressed only if it is large.

        Compressing cost more CPU than writing the bytes it saved: zlib took
        0.1 to 0.3 ms of a 10 to 33 KB page (most of the page write) and 0.15 ms
        of a 50-deal state (10 KB, in every save), and each read paid the
        decompression. Pages (the game's parts, kept as the bytes of the
        answer, and any text) are never compressed; other values from
        COMPRESS_FROM bytes up (a state of several hundred deals), so the
        folder stays small. A pickle starts with 0x80 and a zlib stream with
        0x78: `_unpacked` tells the two apart (and reads older files).
        The same large bytes written again at once are compressed once."""
        if page or isinstance(value, str):
            return pickle.dumps(value, self.pickle_protocol)
        last, packed = self._last_packed
        if value is last:
            return packed
        packed = pickle.dumps(value, self.pickle_protocol)
        if len(packed) >= self.COMPRESS_FROM:
            packed = zlib.compress(packed, 1)
            if isinstance(value, bytes):  # never changed in place
                self._last_packed = (value, packed)
        return packed

    @staticmethod
    def _unpacked(content):
        if content[:1] == b"\x80":  # a pickle, not compressed
            return pickle.loads(content)
        return pickle.loads(zlib.decompress(content))

    def _read(self, key, default, version):
        """Django's `get`, reading what `_packed` wrote: the whole file in one
        `os.read` of the size `os.fstat` gives (four system calls, where a
        buffered `open` and Django's expiry check made ten), then the expiry
        and the value from those bytes. An expired or empty file is deleted,
        as Django does."""
        fname = self._key_to_file(key, version)
        try:
            fd = os.open(fname, _OLD_FILE)
        except FileNotFoundError:
            return default
        try:
            size = os.fstat(fd).st_size
            content = os.read(fd, size)
            while len(content) < size:  # (a read cut short: not seen on a local disk)
                more = os.read(fd, size - len(content))
                if not more:
                    break
                content += more
        finally:
            os.close(fd)
        with io.BytesIO(content) as f:
            try:
                expiry = pickle.load(f)
            except EOFError:
                expiry = 0  # an empty file is expired
            if expiry is not None and expiry < time.time():
                self._delete(fname)
                return default
            with memoryview(content) as view:
                return self._unpacked(view[f.tell() :])

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        value = self._read(key, self._missing, version)
        if value is self._missing:
            return False
        self.set(key, value, timeout, version)
        return True

    def _createdir(self):
        if not os.path.isdir(self._dir):
            super()._createdir()
