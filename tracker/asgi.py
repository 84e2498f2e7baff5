"""The application `make run` serves: gunicorn's own ASGI worker (`-k asgi`).

A small router in front of Django:

- `/g/<token>/stream`, `/w/<token>/stream`, `/t/<token>/stream` and
  `/tw/<token>/stream`, the streams of pushed updates, are held on the worker's
  event loop with no thread (tracker/live/stream.py): about 17 KiB a stream.
- Every other request goes to Django's WSGI application, as it is, on a
  thread of its own: one hand-over to a thread and back per request. Django
  answers it exactly as under a WSGI server (its middleware, sessions, CSRF,
  persistent database connections per thread as CONN_MAX_AGE says).

Why not Django's ASGI handler for the pages: it runs each synchronous
middleware and the view through `sync_to_async`, several thread hand-overs a
request; measured here it served 40 % of the requests per CPU-second the
sync worker serves (one-row view, unchanged poll, game page), where this
router serves 110-125 % (gunicorn's HTTP parsing and kept-alive connections
cost less than the sync worker's connection a request). Nothing here runs
Django in async mode, so nothing needs CONN_MAX_AGE=0.
"""

import asyncio
import io
import os
import re
import resource
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

from django.core.wsgi import get_wsgi_application

django_wsgi = get_wsgi_application()

from . import live  # noqa: E402
from .live import hub as hubs  # noqa: E402
from .live import stream  # noqa: E402
from .middleware import too_big  # noqa: E402

# Django's requests run on one thread a worker, one at a time as on the sync
# worker: Django's work is Python's, under its lock, and a second thread only
# added hand-overs of the lock (measured: a fifth more CPU a deal and its fetches).
THREADS = 1
_threads = ThreadPoolExecutor(THREADS, thread_name_prefix="django")
STREAM = re.compile(r"/(g|w|t|tw)/([^/]+)/stream")
BODY_IN_MEMORY = 1 << 20  # a larger upload is spooled to a temporary file

# Thousands of open streams need thousands of open files: take what the system allows.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft != _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))


async def application(scope, receive, send):
    if scope["type"] == "http":
        path = _path(scope)
        found = STREAM.fullmatch(path)
        if found:
            await stream.serve(scope, receive, send, _the_hub(), *found.groups(), find=_find)
        else:
            await _django(scope, receive, send, path)
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)


# -- the streams


_hub = None


def _the_hub():
    """This worker's hub (tracker/live/hub.py), started by its first stream."""
    global _hub
    if _hub is None:
        _hub = hubs.Hub(live.current_fanout(), live.read_versions, _on_a_thread)
        _hub.start()
    return _hub


async def _on_a_thread(function, *args):
    return await asyncio.get_running_loop().run_in_executor(_threads, function, *args)


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
    """A request header's value as text, or None."""
    return next((v.decode("latin1") for k, v in scope["headers"] if k == name), None)


def _path(scope):
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


async def _django(scope, receive, send, path):
    if too_big(_header(scope, b"content-length")):
        # A body over REQUEST_MAX_BYTES is never read: Django's RequestGuard
        # refuses it from its Content-Length with 413 (tracker/middleware.py).
        body = io.BytesIO()
    else:
        body = await _request_body(receive)
    if body is None:
        return  # the phone went away before it had sent its request
    with body:
        status, headers, content = await _on_a_thread(_answer, _environ(scope, path, body))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


async def _request_body(receive):
    message = await receive()
    if message["type"] != "http.request":
        return None
    if not message.get("more_body"):
        return io.BytesIO(message.get("body", b""))
    body = tempfile.SpooledTemporaryFile(max_size=BODY_IN_MEMORY)  # noqa: SIM115 (closed by _django)
    body.write(message.get("body", b""))
    while message.get("more_body"):
        message = await receive()
        if message["type"] != "http.request":
            body.close()
            return None
        body.write(message.get("body", b""))
    body.seek(0)
    return body


def _environ(scope, path, body):
    """The WSGI environ of an ASGI request (PEP 3333: text as latin-1 of the bytes)."""
    server = scope.get("server") or ("localhost", 80)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode().decode("latin1"),
        "PATH_INFO": path.encode().decode("latin1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if scope.get("client"):
        environ["REMOTE_ADDR"] = scope["client"][0]
    for name, value in scope["headers"]:
        name = name.decode("latin1")
        if "_" in name:
            # As gunicorn's WSGI workers do: "X_Forwarded_Proto" must not pass
            # for the proxy's X-Forwarded-Proto (BEHIND_PROXY trusts that one).
            continue
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        value = value.decode("latin1")
        if key in environ:
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    return environ


def _answer(environ):
    """Django's answer to one request, on a thread: (status, headers, body)."""
    started = []
    written = []

    def start_response(status, headers, exc_info=None):
        started[:] = [status, headers]  # nothing is sent before Django returns
        return written.append

    result = django_wsgi(environ, start_response)
    try:
        content = b"".join([*written, *result])
    finally:
        result.close()  # Django's request_finished: connections closed or kept
    status, headers = started
    headers = [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers]
    return int(status[:3]), headers, content
