"""The stream of one game screen, view link or table page: a bare ASGI handler.

    GET /g/<edit token>/stream    GET /w/<view token>/stream
    GET /t/<edit token>/stream    GET /tw/<view token>/stream

tracker/asgi.py calls it once Django has let the request through (its Host,
HTTPS, method and link). The link is read once more, on one of Django's
threads (`tracker.live.find`), for the game's or table's revision; one deleted
meanwhile is answered 404. An address already holding as many streams as the
hub allows here is answered 429: the page polls instead. Then the stream is
held on the event loop, with no thread: the current revision at once (so a
reconnect needs no replay), a comment every HEARTBEAT seconds, and the new
revision each time the worker's hub hears of one. An event is only
"data: <revision>": nothing a link could be derived from. A view link's
stream then sends the new board as an "event: board" (tracker/views/live.py's
`watch_board`, the part the page would fetch), made once for every stream of
the worker told that revision in the same language and theme. While the worker's
fan-out is cut off (Redis down) the stream says "event: poll" instead, and its
page polls until the next plain event. The stream ends
when the phone goes, when the game or table is deleted, or when the server
stops (its graceful timeout). Every answer carries the site's security
headers (`headers`, tracker/middleware.py).
"""

import asyncio
import random

from .hub import BEAT, GONE, LEFT

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),  # nginx: pass each event on at once
]
RETRY_MS = (2000, 6000)  # a reconnect's wait, spread so a restart is not met by every phone at once


async def refuse(send, status, text, headers, more=()):
    headers = [(b"content-type", b"text/plain; charset=utf-8"), *more, *headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text.encode()})


async def serve(receive, send, hub, kind, token, find, address, headers, board_for=None):
    """`find(kind, token)` -> (channel, version) or None, awaited (it runs on a thread);
    `address`: the phone's; `headers`: the security headers, [(name, value)] as bytes;
    `board_for`: how a view link's board is made for this phone (None: not sent)."""
    if not hub.admit(address):
        retry = [(b"retry-after", b"60")]
        await refuse(
            send,
            429,
            "Too many live updates from your address: the page checks instead.\n",
            headers,
            retry,
        )
        return
    try:
        found = await find(kind, token)
        if found is None:
            what = "game" if kind in ("g", "w") else "table"
            await refuse(send, 404, f"No {what} has that link.\n", headers)
            return
        await _hold(receive, send, hub, found, headers, board_for)
    finally:
        hub.release(address)


async def _hold(receive, send, hub, found, headers, board_for):
    channel, version = found
    listener = hub.join(channel, version)

    async def wait_for_the_phone_to_go():
        while (await receive())["type"] != "http.disconnect":
            pass
        listener.tell(LEFT)

    gone = asyncio.ensure_future(wait_for_the_phone_to_go())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS + headers})
        hello = f"retry: {random.randint(*RETRY_MS)}\ndata: {version}\n\n"
        await send({"type": "http.response.body", "body": hello.encode(), "more_body": True})
        while True:
            news = await listener.next()
            if news in (LEFT, GONE):
                break
            moved = news != BEAT and news != listener.known
            if moved:
                listener.known = news
            if moved or listener.polling != hub.polling:
                # While the worker hears nothing (Redis down) each revision is
                # an "event: poll": the page polls until a plain event again.
                listener.polling = hub.polling
                name = "event: poll\n" if hub.polling else ""
                chunk = f"{name}data: {listener.known}\n\n".encode()
            elif news == BEAT:
                chunk = b":\n\n"
            else:
                continue
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if moved and board_for is not None and not hub.polling:
                board = await hub.board(channel, listener.known, board_for)
                if board is not None:
                    lines = "".join(f"data: {line}\n" for line in board.splitlines())
                    chunk = f"event: board\n{lines}\n".encode()
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if not gone.done():  # deleted or stopping: end the response; the phone reconnects
            await send({"type": "http.response.body", "body": b""})
    except OSError:
        pass  # the connection broke while writing: nothing more to send
    finally:
        hub.leave(listener)
        gone.cancel()
