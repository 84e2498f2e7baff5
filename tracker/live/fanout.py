"""How a change reaches every worker that holds a stream of it.

A change is one short message, "g 12 57" (game 12 is at revision 57), "t 3 140"
(table 3's version is 140) or "g 12 -" (game 12 is gone). It is said once per
change by whichever process made it (`publish`, from a Django thread), and
heard by ONE listener in each worker (`listen`, on the worker's event loop),
which hands it to the worker's hub (tracker/live/hub.py): one signal per
worker, never one per phone.

- `Local` (the default: SQLite, no extra server): each worker binds a Unix
  datagram socket in LIVE_DIR (var/live/, mode 0700); a change is one datagram
  to each socket there. Every gunicorn worker and server on this machine that
  shares the folder hears it, at once and with no polling.
- `Redis` (REDIS_URL set): one pub/sub channel. Pub/sub drops what
  it sends while a subscriber is away, so after every (re)subscription the hub
  reads again the revisions of what it holds (`hub.resync`). Redis down fails
  no save: a publish that cannot reach it is skipped (the hubs read the
  revisions when they subscribe again), and each listener tells its hub, whose
  streams' pages poll meanwhile; the listener tries again within a second, so
  the pages catch up at once when Redis is back. Each is logged once an outage.
- `Postgres` (LIVE_FANOUT=postgres): NOTIFY on one channel, LISTEN on a
  connection of the worker's own (not through pgbouncer's transaction pooling).
"""

import asyncio
import logging
import os
import socket
from pathlib import Path

log = logging.getLogger(__name__)

CHANNEL = "rummy_live"  # the Redis channel and the PostgreSQL NOTIFY channel
# Seconds before each retry of a lost listener: at most one, as the pages poll
# meanwhile and should be told the moment it is back (a refused connection costs little).
RECONNECT_AFTER = (0.1, 0.25, 0.5, 1)


class Local:
    """Unix datagrams to every worker's socket in one folder."""

    SEND_TIMEOUT = 0.05  # a worker whose queue is full is waited for this long, then skipped

    def __init__(self, folder):
        self.folder = Path(folder)

    def publish(self, message):
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return  # no worker holds a stream
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.settimeout(self.SEND_TIMEOUT)
            for name in names:
                if not name.endswith(".sock"):
                    continue
                path = self.folder / name
                try:
                    sender.sendto(message, str(path))
                except (ConnectionRefusedError, FileNotFoundError):
                    path.unlink(missing_ok=True)  # a worker that is gone left it
                except OSError as error:  # a worker too busy to read: its resync catches up
                    log.warning("live: could not tell %s: %s", name, error)

    async def listen(self, hub):
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.folder / f"{os.getpid()}.sock"
        path.unlink(missing_ok=True)  # a worker gone before with the same pid
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(path))
        os.chmod(path, 0o600)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()

        def read():
            while True:
                try:
                    hub.heard(sock.recv(256))
                except BlockingIOError:
                    return

        loop.add_reader(sock.fileno(), read)
        hub.resync_soon()  # anything said before the socket was there
        try:
            await asyncio.Event().wait()  # until the hub stops
        finally:
            loop.remove_reader(sock.fileno())
            sock.close()
            path.unlink(missing_ok=True)


class Redis:
    """One Redis pub/sub channel, for several servers."""

    def __init__(self, url):
        self.url = url
        self._client = None
        self._unreachable = False  # logged once, until a publish gets through again

    def publish(self, message):
        import redis

        try:
            if self._client is None:  # one per process; redis-py's pool is thread-safe
                self._client = redis.Redis.from_url(
                    self.url, socket_timeout=1, socket_connect_timeout=1
                )
            self._client.publish(CHANNEL, message)
        except (redis.RedisError, OSError) as error:  # the hubs resync when Redis is back
            if not self._unreachable:
                self._unreachable = True
                log.warning("live: Redis unreachable, changes not published: %s", error)
            return
        if self._unreachable:
            self._unreachable = False
            log.warning("live: Redis reachable again, changes published")

    async def listen(self, hub):
        import redis
        import redis.asyncio

        failures = 0
        while True:
            client = redis.asyncio.Redis.from_url(self.url, health_check_interval=15)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                if failures:
                    log.warning("live: Redis listener back; the pages stop polling")
                failures = 0
                # What was published while this worker was not subscribed is lost.
                hub.listener_back()
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        hub.heard(message["data"])
            except (redis.RedisError, OSError) as error:
                if not failures:
                    log.warning("live: Redis listener lost (%s); the pages poll meanwhile", error)
                hub.listener_lost()
            finally:
                try:
                    await pubsub.aclose()
                    await client.aclose()
                except (redis.RedisError, OSError):
                    pass
            await asyncio.sleep(RECONNECT_AFTER[min(failures, len(RECONNECT_AFTER) - 1)])
            failures += 1


class Postgres:
    """PostgreSQL NOTIFY / LISTEN, on the database the app already uses."""

    def __init__(self, database):
        self.database = database  # a settings.DATABASES entry

    def publish(self, message):
        from django.db import DatabaseError, connections

        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, message.decode()])
        except DatabaseError as error:
            log.warning("live: could not NOTIFY: %s", error)

    def _conninfo(self):
        db = self.database
        parts = {
            "dbname": db.get("NAME"),
            "user": db.get("USER"),
            "password": db.get("PASSWORD"),
            "host": db.get("HOST"),
            "port": db.get("PORT"),
        }
        return {key: value for key, value in parts.items() if value}

    async def listen(self, hub):
        import psycopg

        failures = 0
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    **self._conninfo(), autocommit=True
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    failures = 0
                    hub.listener_back()
                    async for notice in connection.notifies():
                        hub.heard(notice.payload.encode())
            except (psycopg.Error, OSError) as error:
                if not failures:
                    log.warning("live: PostgreSQL listener lost (%s); reconnecting", error)
                hub.listener_lost()
            await asyncio.sleep(RECONNECT_AFTER[min(failures, len(RECONNECT_AFTER) - 1)])
            failures += 1


def configured():
    """The fan-out the settings name (LIVE_FANOUT, tracker/settings.py)."""
    from django.conf import settings

    kind = settings.LIVE_FANOUT
    if kind == "redis":
        return Redis(settings.LIVE_REDIS_URL)
    if kind == "postgres":
        return Postgres(settings.DATABASES["default"])
    return Local(settings.LIVE_DIR)
