"""How gunicorn serves the app: `gunicorn -c python:tracker.serving ...` (see `make run`).

- gunicorn believes no forwarded header (X-Forwarded-Proto and the others
  it would read from any address `--forwarded-allow-ips` names). Behind a
  reverse proxy that ends TLS (`BEHIND_PROXY=on`), Django reads
  X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER) and tracker/allowance.py the
  client's address in X-Forwarded-For; with BEHIND_PROXY off nothing does,
  so a plain-HTTP request that says "https" is still redirected to HTTPS.
- Its logs (access and error) write links' tokens shortened (tracker/logs.py).
- `Worker`, gunicorn's ASGI worker (`--worker-class tracker.serving.Worker`),
  closes a connection that has not sent its whole first request head within
  HEADER_TIMEOUT seconds. gunicorn's own bounds only the wait between two
  requests (its keep-alive), so a connection that never finishes its first
  head was held for ever; thousands of them held the worker's files and
  memory. gunicorn has no setting for this, nor for the class of its
  connections: the worker names ours in its module when it starts.
- `Worker` also lets its event loop at Python's lock sooner (SWITCH_INTERVAL):
  the loop that tells the phones and hands Django's answers on shares the lock
  with the thread running Django, and by default waits up to 5 ms for it each
  time it wakes while a page is being made.
"""

import os
import sys

from gunicorn.asgi.protocol import ASGIProtocol
from gunicorn.glogging import Logger
from gunicorn.workers import gasgi

from tracker.logs import ShortLinks

forwarded_allow_ips = ""
logger_class = "tracker.serving.ShortLinksLogger"
HEADER_TIMEOUT = float(os.environ.get("HEADER_TIMEOUT", 20))
SWITCH_INTERVAL = 0.0005  # seconds a thread holds Python's lock while another waits


class ShortLinksLogger(Logger):
    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.addFilter(ShortLinks())


class HeaderDeadline(ASGIProtocol):
    """A connection of gunicorn's ASGI worker, closed if its first request head is
    not whole within HEADER_TIMEOUT seconds of its opening."""

    deadline = None

    def connection_made(self, transport):
        super().connection_made(transport)
        if HEADER_TIMEOUT > 0:
            self.deadline = self.worker.loop.call_later(HEADER_TIMEOUT, self._head_too_slow)

    def _on_headers_complete(self):
        self._end_deadline()
        return super()._on_headers_complete()

    def connection_lost(self, exc):
        self._end_deadline()
        super().connection_lost(exc)

    def _end_deadline(self):
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _head_too_slow(self):
        self.deadline = None
        self.log.debug("Closing a connection whose request head took over %s s", HEADER_TIMEOUT)
        self._close_transport()
        if self._request_ready is not None:
            self._request_ready.set()  # its connection loop sees it closed and ends


class Worker(gasgi.ASGIWorker):
    def init_process(self):
        gasgi.ASGIProtocol = HeaderDeadline
        sys.setswitchinterval(SWITCH_INTERVAL)
        super().init_process()
