"""The application `make run` serves, on gunicorn's ASGI worker (tracker/serving.py).

A small router in front of Django's WSGI application, which a2wsgi serves
on one thread a worker: Django answers every request exactly as under a WSGI
server (its middleware, sessions, CSRF, persistent database connections as
CONN_MAX_AGE says). Django's own ASGI handler would run each synchronous
middleware and the view through `sync_to_async`, a hand-over to a thread and
back for each, where here the whole request runs on the thread.

- The streams of pushed updates, `/g/<token>/stream`, `/w/...`, `/t/...`
  and `/tw/...`, go to Django first too: it checks what it checks of every
  request (the Host, HTTPS, the method, the link: `views.games.no_stream`
  answers 204 to a link that leads somewhere). Any other answer is sent as
  Django made it; on that 204 the stream is held on the worker's event loop
  with no thread (tracker/live/stream.py), a few from one address at most.
- A request's body is read here, on the event loop, before Django's thread
  is given it: a slow upload holds no thread. A body over REQUEST_MAX_BYTES
  is never read: with its Content-Length, Django refuses it (413) unread;
  chunked, reading stops once it has passed the limit and Django is told the
  length read so far, refusing it alike. The rest is never read: the
  connection is closed after the answer.
- An HTTP/1.1 request without Host is refused 400 (RFC 9112, section 3.2).

Every answer made here carries the site's security headers (middleware.py).
"""

import asyncio
import os
import re
import resource
import tempfile

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application

# Django's requests run on one thread a worker, one at a time as on the sync
# worker: Django's work is Python's, under its lock, and a second thread only
# adds hand-overs of the lock.
# (django-stubs types the handler's answer as HttpResponseBase, which it does not
# mark iterable; every answer Django's handler gives is an iterable of bytes.)
django = WSGIMiddleware(get_wsgi_application(), workers=1)  # type: ignore[arg-type]

from . import live  # noqa: E402
from .allowance import address_in  # noqa: E402
from .live import hub as hubs  # noqa: E402
from .live import stream  # noqa: E402
from .middleware import security_headers, too_big  # noqa: E402
from .views.live import BOARD_FOR as BOARD_FOR_NAME  # noqa: E402
from .views.live import watch_board  # noqa: E402

STREAM = re.compile(r"/(g|w|t|tw)/([^/]+)/stream")
BOARD_FOR = BOARD_FOR_NAME.lower().encode("ascii")  # as a2wsgi passes the header on
BODY_IN_MEMORY = 1 << 20  # a larger body is spooled to a temporary file
PIECE = 1 << 16  # a spooled body is handed to Django this much at a time

# Thousands of open streams need thousands of open files: take what the system allows.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft != _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))


async def application(scope, receive, send):
    if scope["type"] == "http":
        await _http(scope, receive, send)
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)


async def _http(scope, receive, send):
    if scope.get("http_version") == "1.1" and _header(scope, b"host") is None:
        text = "400 Bad Request: an HTTP/1.1 request must say its Host.\n"
        await stream.refuse(send, 400, text, _security_headers(_is_secure(scope)))
        return
    found = STREAM.fullmatch(_path(scope))
    if found is None or scope["method"] != "GET":
        await _django(scope, receive, send)
        return
    # The stream's request, as Django answers it: sent on, unless it is the 204
    # that lets the stream be held (and says how a view link's board is made).
    let_through = False
    board_for = None

    async def send_unless_let_through(message):
        nonlocal let_through, board_for
        if message["type"] == "http.response.start" and message["status"] == 204:
            let_through = True
            found = dict(message.get("headers", ())).get(BOARD_FOR)
            board_for = found.decode("ascii") if found else None
        if not let_through:
            await send(message)

    await django(scope, receive, send_unless_let_through)
    if let_through:
        address = address_in(
            {
                "REMOTE_ADDR": (scope.get("client") or ("",))[0],
                "HTTP_X_FORWARDED_FOR": _header(scope, b"x-forwarded-for") or "",
            }
        )
        headers = _security_headers(_is_secure(scope))
        kind, token = found.groups()
        hub = _the_hub()
        await stream.serve(receive, send, hub, kind, token, _find, address, headers, board_for)


# -- the streams


_hub = None


def _the_hub():
    """This worker's hub (tracker/live/hub.py), started by its first stream."""
    global _hub
    if _hub is None:
        fanout = live.current_fanout()
        _hub = hubs.Hub(
            fanout,
            live.read_versions,
            _on_a_thread,
            settings.STREAMS_PER_ADDRESS,
            make_board=watch_board,
        )
        _hub.start()
    return _hub


async def _on_a_thread(function, *args):
    """On Django's thread, as its requests."""
    return await asyncio.get_running_loop().run_in_executor(django.executor, function, *args)


async def _find(kind, token):
    return await _on_a_thread(live.find, kind, token)


async def _lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            # gunicorn sends this once its graceful timeout is over: the streams
            # still open are ended here, each with the end of its response.
            if _hub is not None:
                await _hub.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return


# -- everything else: Django


def _header(scope, name):
    """A request header's value as text (several joined by commas), or None."""
    values = [v.decode("latin1") for k, v in scope["headers"] if k == name]
    return ",".join(values) if values else None


def _path(scope):
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _is_secure(scope):
    """As Django's request.is_secure() reads it (SECURE_PROXY_SSL_HEADER behind a proxy)."""
    if settings.BEHIND_PROXY:
        return (_header(scope, b"x-forwarded-proto") or "").split(",")[0].strip() == "https"
    return scope.get("scheme") == "https"


def _security_headers(secure):
    return [(k.lower().encode(), v.encode()) for k, v in security_headers(secure).items()]


async def _django(scope, receive, send):
    read = await _read_body(scope, receive)
    if read is None:
        return  # the phone went away before it had sent its request
    scope, body = read
    try:
        await django(scope, _replay(body, receive) if body else receive, send)
    finally:
        if body:
            body.close()


async def _read_body(scope, receive):
    """(scope, its body in a file or None) for Django, or None if the phone went away.

    A body longer than REQUEST_MAX_BYTES is left unread (None); a chunked one is
    read no further than that, and the scope says its length (the length read
    when it was refused), as Content-Length: Django reads that and nothing more."""
    length = _header(scope, b"content-length")
    chunked = length is None and _header(scope, b"transfer-encoding") is not None
    if too_big(length) or (not chunked and length in (None, "0")):
        return scope, None
    body = tempfile.SpooledTemporaryFile(max_size=BODY_IN_MEMORY)  # noqa: SIM115 (closed by _django)
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            body.close()
            return None
        piece = message.get("body", b"")
        size += len(piece)
        if size > settings.REQUEST_MAX_BYTES:
            break  # refused: not a byte more is read, nor kept
        body.write(piece)
        if not message.get("more_body"):
            break
    body.seek(0)
    if chunked:
        headers = [(k, v) for k, v in scope["headers"] if k != b"transfer-encoding"]
        headers.append((b"content-length", str(size).encode()))
        scope = {**scope, "headers": headers}
    return scope, body


def _replay(body, receive):
    """A receive() that gives the body read, then what the connection says (its end)."""
    done = False

    async def replay():
        nonlocal done
        if done:
            return await receive()
        piece = body.read(PIECE)
        done = not piece
        return {"type": "http.request", "body": piece, "more_body": not done}

    return replay
