"""How gunicorn serves the app: `gunicorn -c python:tracker.serving tracker.wsgi`.

- gunicorn believes no forwarded header (X-Forwarded-Proto and the others
  it would read from any address `--forwarded-allow-ips` names). Behind a
  reverse proxy that ends TLS (`BEHIND_PROXY=on`), Django reads
  X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER) and tracker/allowance.py the
  client's address in X-Forwarded-For; with BEHIND_PROXY off nothing does,
  so a plain-HTTP request that says "https" is still redirected to HTTPS.
- Its logs (access and error, and the uvicorn worker's, which writes
  through the same handlers) write links' tokens shortened (tracker/logs.py).
"""

from gunicorn.glogging import Logger

from tracker.logs import ShortLinks

forwarded_allow_ips = ""
logger_class = "tracker.serving.ShortLinksLogger"


class ShortLinksLogger(Logger):
    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.addFilter(ShortLinks())
