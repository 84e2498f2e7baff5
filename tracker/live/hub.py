"""Each worker's hub: which open streams watch which game or table.

One hub per worker process, on its event loop, started by the first stream.
It holds, per game or table, the streams open on it (`Listener`s), and hears
every change from the worker's one listener (tracker/live/fanout.py). A
change wakes only the streams of that game or table that have not been told
that revision; once every HEARTBEAT seconds every stream is woken to send a
comment, so proxies and phones' networks keep the connection open: a
fifteenth of them each second, not all at once (10,000 streams woken together
held up a save's events behind them). No thread is held: a stream is a
waiting coroutine and a small object.

One address holds at most `per_address` streams here (STREAMS_PER_ADDRESS):
a family's phones need a handful, and thousands from one address would slow
every page of the worker. A stream refused is answered at once; the page
polls instead.

After a listener (re)connects, and every RESYNC seconds, the hub reads the
revisions of everything it holds in one query (`resync`): a change said while
nobody listened (Redis restarting, a worker too busy to read) still arrives,
and a game deleted ends its streams.

While the listener is cut off (Redis down), nothing is heard: every stream
tells its page to poll (`polling`), until the listener is back and the
revisions held are read again.
"""

import asyncio
import contextlib
import logging
from collections import Counter, OrderedDict

log = logging.getLogger(__name__)

HEARTBEAT = 15  # seconds between comments on an idle stream
RESYNC = 60  # seconds between reads of the revisions held, whatever was heard
HEARD_KEPT = 4096  # the latest revision heard of this many games and tables

# What a stream can be told besides a new revision.
BEAT = "beat"  # send a heartbeat comment
GONE = "gone"  # the game or table was deleted: end the stream
LEFT = "left"  # the phone went away, or the server is stopping


class Listener:
    """One open stream's mailbox: the most important news not yet sent, and the
    revision its phone was told last (`known`, kept by the stream)."""

    __slots__ = ("beat_slot", "channel", "known", "news", "polling", "waiter")

    def __init__(self, channel, known, beat_slot):
        self.channel = channel
        self.known = known
        self.polling = False  # the stream told its page to poll (kept by the stream)
        self.beat_slot = beat_slot
        self.news = None
        self.waiter = None

    def tell(self, news):
        if self.news in (GONE, LEFT) or (news == BEAT and self.news is not None):
            return  # an end outranks everything; any news is as good as a heartbeat
        self.news = news
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def next(self):
        if self.news is None:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        news, self.news = self.news, None
        return news


def parse(message):
    """("g" or "t", id) and the version (None: deleted) of a fan-out message, or None."""
    try:
        kind, pk, version = message.decode("ascii").split()
        return (kind, int(pk)), (None if version == "-" else int(version))
    except (UnicodeDecodeError, ValueError):
        return None


def message(channel, version):
    kind, pk = channel
    return f"{kind} {pk} {'-' if version is None else version}".encode("ascii")


class Hub:
    def __init__(self, fanout, read_versions, run_in_thread, per_address=None, make_board=None):
        """`read_versions(channels)` -> {channel: version}, run by `run_in_thread`, as is
        `make_board(game id, board_for)` -> a view link's board as it is now, or None."""
        self.fanout = fanout
        self.make_board = make_board
        # (channel, board_for): (the revision asked for, the board being made): the
        # streams told that revision at once wait for one board, kept no longer.
        self.boards = {}
        self.per_address = per_address  # None: no limit
        self.addresses = Counter()  # address: streams it holds (or is opening) here
        self.read_versions = read_versions
        self.run_in_thread = run_in_thread
        self.channels = {}  # channel: set of Listeners
        self.beats = [set() for _ in range(HEARTBEAT)]  # the listeners beaten each second
        self.joined = 0
        self.heard_last = OrderedDict()  # channel: the latest version heard of it
        self.tasks = []
        self._resync_wanted = None
        self.polling = False  # the listener is cut off: the streams' pages poll
        self._back = False  # the listener is back: the pages stop polling after a resync

    def start(self):
        self._resync_wanted = asyncio.Event()
        self.tasks = [
            asyncio.ensure_future(self.fanout.listen(self)),
            asyncio.ensure_future(self._beat()),
            asyncio.ensure_future(self._resync_now_and_then()),
        ]

    async def stop(self):
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.tasks = []
        for listeners in list(self.channels.values()):
            for listener in list(listeners):
                listener.tell(LEFT)

    # -- streams

    def admit(self, address):
        """Whether `address` may open one more stream; if so it counts until `release`."""
        if self.per_address is not None and self.addresses[address] >= self.per_address:
            return False
        self.addresses[address] += 1
        return True

    def release(self, address):
        self.addresses[address] -= 1
        if self.addresses[address] <= 0:
            del self.addresses[address]

    def join(self, channel, version):
        """A new stream on `channel`, whose revision was read as `version`: if a newer
        one was heard meanwhile (a change between the read and now), it is told it."""
        self.joined += 1
        listener = Listener(channel, version, self.joined % HEARTBEAT)
        self.channels.setdefault(channel, set()).add(listener)
        self.beats[listener.beat_slot].add(listener)
        heard = self.heard_last.get(channel)
        if heard is not None and heard > version:
            listener.tell(heard)
        elif self.polling:
            listener.tell(BEAT)  # wakes the stream, which tells its page to poll
        return listener

    def leave(self, listener):
        self.beats[listener.beat_slot].discard(listener)
        listeners = self.channels.get(listener.channel)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.channels[listener.channel]

    async def board(self, channel, version, board_for):
        """A view link's board of the game on `channel` once it is at `version` (or
        later), made once for every stream of that game and `board_for` told it."""
        key = (channel, board_for)
        made = self.boards.get(key)
        if made is None or made[0] != version:
            _, game_id = channel
            task = asyncio.ensure_future(self.run_in_thread(self.make_board, game_id, board_for))
            made = self.boards[key] = (version, task)

            def forget(task, key=key):
                if self.boards.get(key, (None, None))[1] is task:
                    del self.boards[key]

            task.add_done_callback(forget)
        return await asyncio.shield(made[1])

    # -- what the listener hears

    def heard(self, data):
        found = parse(data)
        if found is None:
            log.warning("live: a message not understood: %r", data[:80])
            return
        channel, version = found
        self._tell(channel, version)

    def _tell(self, channel, version):
        if version is None:
            self.heard_last.pop(channel, None)
        else:
            self.heard_last[channel] = version
            self.heard_last.move_to_end(channel)
            if len(self.heard_last) > HEARD_KEPT:
                self.heard_last.popitem(last=False)
        for listener in list(self.channels.get(channel, ())):
            if version is None:
                listener.tell(GONE)
            elif version != listener.known:
                listener.tell(version)

    def listener_lost(self):
        """The listener is cut off (Redis down): nothing will be heard, so every
        stream tells its page to poll until the listener is back."""
        self._back = False
        if not self.polling:
            self.polling = True
            self._wake_everyone()

    def listener_back(self):
        """Subscribed (again): the revisions held are read, then the pages stop polling."""
        self._back = self.polling
        self.resync_soon()

    def _wake_everyone(self):
        for listeners in list(self.channels.values()):
            for listener in list(listeners):
                listener.tell(BEAT)  # the stream looks at `polling` whenever it wakes

    def resync_soon(self):
        if self._resync_wanted is not None:
            self._resync_wanted.set()

    async def resync(self):
        """Read the revision of every game and table held, and tell the streams."""
        held = list(self.channels)
        if not held:
            return
        versions = await self.run_in_thread(self.read_versions, held)
        for channel in held:
            self._tell(channel, versions.get(channel))

    async def _resync_now_and_then(self):
        while True:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._resync_wanted.wait(), RESYNC)
            self._resync_wanted.clear()
            back = self._back
            try:
                await self.resync()
            except Exception:  # a database hiccup: the next round tries again
                log.exception("live: could not read the revisions held")
                continue
            if back and self._back:  # and not lost again meanwhile
                self._back = False
                self.polling = False
                self._wake_everyone()

    async def _beat(self):
        second = 0
        while True:
            await asyncio.sleep(1)
            second = (second + 1) % HEARTBEAT
            for listener in list(self.beats[second]):
                listener.tell(BEAT)
