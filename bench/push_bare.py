"""The floor bench/push.py compares the app's pushed updates with: a bare ASGI broadcast.

No Django, no database: `GET /s/<n>` holds a Server-Sent Events stream on
channel n (sending "data: 0" at once, and a comment every 15 s as the app
does, a fifteenth of the streams each second), and `GET /send/<n>/<v>` tells every
worker (one Unix datagram to each worker's socket in BARE_DIR, as the app's
default fan-out does) to send "data: <v>" to the streams of channel n,
answering the time it began to (time.time(), as the app's commit is timed by
its event's created_at: bench/push.py). Served
by the same gunicorn ASGI worker and number of workers as the app. Any other
path is answered 404.
"""

import asyncio
import contextlib
import os
import socket
import time
from pathlib import Path

FOLDER = Path(os.environ.get("BARE_DIR", "/tmp/rummy-bare"))
HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
channels = {}  # n: set of queues
beats = [set() for _ in range(15)]  # the queues given a heartbeat each second
_listening = []


def _listen():
    """This worker's datagram socket, read on its event loop (made by the first request)."""
    FOLDER.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = FOLDER / f"{os.getpid()}.sock"
    path.unlink(missing_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)

    def read():
        while True:
            try:
                n, v = sock.recv(64).split()
            except BlockingIOError:
                return
            for queue in channels.get(int(n), ()):
                queue.put_nowait(v)

    asyncio.get_running_loop().add_reader(sock.fileno(), read)
    _listening.append(sock)

    async def beat():
        second = 0
        while True:
            await asyncio.sleep(1)
            second = (second + 1) % 15
            for queue in beats[second]:
                queue.put_nowait(None)

    _listening.append(asyncio.ensure_future(beat()))


def _broadcast(n, v):
    message = f"{n} {v}".encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        for path in FOLDER.glob("*.sock"):
            with contextlib.suppress(OSError):
                sender.sendto(message, str(path))


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if not _listening:
        _listen()
    parts = scope["path"].strip("/").split("/")
    if len(parts) != {"send": 3, "s": 2}.get(parts[0]):  # gunicorn's start-up check, say
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    if parts[0] == "send":
        began = time.time()
        _broadcast(int(parts[1]), int(parts[2]))
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": repr(began).encode()})
        return
    n = int(parts[1])
    queue = asyncio.Queue()
    channels.setdefault(n, set()).add(queue)
    slot = id(queue) % 15
    beats[slot].add(queue)

    async def disconnect():
        while (await receive())["type"] != "http.disconnect":
            pass

    gone = asyncio.ensure_future(disconnect())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        await send({"type": "http.response.body", "body": b"data: 0\n\n", "more_body": True})
        while True:
            got = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({got, gone}, return_when=asyncio.FIRST_COMPLETED)
            if gone in done:
                got.cancel()
                return
            number = got.result()
            chunk = b":\n\n" if number is None else b"data: " + number + b"\n\n"
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    finally:
        channels[n].discard(queue)
        beats[slot].discard(queue)
        gone.cancel()
