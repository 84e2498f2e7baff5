"""Settings for the rummy score tracker, read from the environment.

SQLite is the default so a fresh checkout just runs; DATABASE_URL switches to
PostgreSQL (or another SQLite file).
"""

import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def env_int(name, default):
    return int(os.environ.get(name, default))


def env_list(name, default):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)


def private_file(path):
    """Make `path` readable by its owner alone (0600): new if missing, tightened if
    wider. The secret key and the SQLite database (which holds every link's
    token) are no business of other users of the machine."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)


def local_secret_key(path=BASE_DIR / ".secret_key"):
    """A random key kept beside the code, made on first start, for a home server
    that was given no SECRET_KEY (several gunicorn workers must share it)."""
    if not path.exists():
        draft = path.with_name(f".secret_key.{os.getpid()}")
        try:
            private_file(draft)
            draft.write_text(secrets.token_urlsafe(50))
            os.link(draft, path)  # atomic: the first worker's key wins
        except FileExistsError:
            pass
        finally:
            draft.unlink(missing_ok=True)
    private_file(path)  # one kept from before, made 0644
    return path.read_text().strip()


# Every server on one database must share it (cookies signed on one are read by
# the others): tracker/shared_key.py refuses a server whose key is not its
# database's. A key changed on purpose keeps the old one here for a while.
SECRET_KEY = os.environ.get("SECRET_KEY") or local_secret_key()
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "*")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "csp",
    "tracker",
]

MIDDLEWARE = [
    # First: a body too big is never read, any other form is read once, safely,
    # before any refusal above the views (a bad Host) could read it (middleware.py).
    "tracker.middleware.RequestGuard",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the switch's cookie, else Accept-Language, else English.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A removed game's links answer 410, saying where to put it back.
    "tracker.middleware.RemovedGames",
    # Last, so every header above is still added to its 413 or 400 for a body
    # RequestGuard refused, before CsrfViewMiddleware.process_view or a view runs.
    "tracker.middleware.UnreadableBody",
]

ROOT_URLCONF = "tracker.urls"
WSGI_APPLICATION = "tracker.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tracker.context_processors.theme",
            ],
        },
    },
]

# SQLite for several writers at once (shared/docs/tooling.md): WAL, IMMEDIATE
# transactions so writers queue instead of failing, a busy timeout, and
# persistent connections.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
CONN_MAX_AGE = env_int("CONN_MAX_AGE", 600)

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    default_db = dj_database_url.parse(DATABASE_URL, conn_max_age=CONN_MAX_AGE)
else:
    default_db = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(BASE_DIR / "db.sqlite3"),
        "CONN_MAX_AGE": CONN_MAX_AGE,
    }
if default_db["ENGINE"] == "django.db.backends.sqlite3":
    default_db["OPTIONS"] = {**SQLITE_OPTIONS, **default_db.get("OPTIONS", {})}
    default_db.setdefault("TEST", {})
    if str(default_db["NAME"]) not in ("", ":memory:"):
        # SQLite makes its -wal and -shm files with the database file's mode.
        for suffix in ("", "-wal", "-shm"):
            sqlite_file = Path(f"{default_db['NAME']}{suffix}")
            if sqlite_file.parent.is_dir() and (not suffix or sqlite_file.exists()):
                private_file(sqlite_file)
else:
    default_db["CONN_HEALTH_CHECKS"] = True
DATABASES = {"default": default_db}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# English, Hindi, Tamil and Telugu (locale/<code>/README.md), each named in its
# own words on the switch. Any other language a browser asks for gets English.
# The compiled .mo files are built by `make run` and `make test` (manage.py
# compilemessages), not kept in git. Dates are written as each language writes
# them (tracker/formats/<code>/formats.py).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("hi", "हिंदी"), ("ta", "தமிழ்"), ("te", "తెలుగు")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["tracker.formats"]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = os.environ.get("TIME_ZONE", "Asia/Kolkata")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# No cache: every page, poll and save replays the stored history through the
# code that is running, so nothing kept can show a family an old board
# (README, "Pushed updates"). Redis (REDIS_URL) carries the pushed updates
# between several servers.
REDIS_URL = os.environ.get("REDIS_URL", "")

# Pushed updates (tracker/live/): how a change reaches every worker holding a
# stream of it. "local": Unix datagrams between this machine's workers through
# LIVE_DIR (the default, no extra server); "redis": pub/sub on
# REDIS_URL, for several servers, chosen when one is set; "postgres":
# NOTIFY/LISTEN on the database (not through pgbouncer's transaction pooling).
LIVE_REDIS_URL = REDIS_URL
LIVE_FANOUT = os.environ.get("LIVE_FANOUT") or ("redis" if REDIS_URL else "local")
LIVE_DIR = Path(os.environ.get("LIVE_DIR") or BASE_DIR / "var" / "live")

SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True

# Behind HTTPS (the default for production) cookies are secure and HSTS is on;
# a plain-HTTP home network sets HTTPS=off (see README).
HTTPS = env_bool("HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
LANGUAGE_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The reverse proxies in front of the app that each append to X-Forwarded-For:
# the client's address is the entry this many places from the right.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 1)
SECURE_CONTENT_TYPE_NOSNIFF = True
# No camera, microphone or location; the game screen keeps the screen awake.
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), screen-wake-lock=(self)"
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "object-src": ["'none'"],
    },
}

# Limits a family never reaches, so that no client fills the database or ties a
# worker up (README, Settings). New games (created or imported, each game of a
# table document counted, and a refused upload as the games it held) and new
# tables per client per hour (tracker/allowance.py):
GAMES_PER_HOUR = env_int("GAMES_PER_HOUR", 30)
# Counted before anything is replayed: events in a game's history (deals and
# the rest), games in a table document, and the bytes of an uploaded file.
EVENTS_PER_GAME = env_int("EVENTS_PER_GAME", 2000)
GAMES_PER_TABLE_FILE = env_int("GAMES_PER_TABLE_FILE", 1000)
GAME_FILE_MAX_BYTES = env_int("GAME_FILE_MAX_BYTES", 2_000_000)
TABLE_FILE_MAX_BYTES = env_int("TABLE_FILE_MAX_BYTES", 10_000_000)
# What one table may hold, its removed games too: every read of the table
# (its page, stats, charts and document) replays all of its games, so these
# bound what a view link can cost (bench: the largest table, < 1 s of CPU).
GAMES_PER_TABLE = env_int("GAMES_PER_TABLE", 300)
EVENTS_PER_TABLE = env_int("EVENTS_PER_TABLE", 10_000)
# The largest index.json `manage.py restore` reads (its games' and tables' files
# are held to the two limits above).
BACKUP_INDEX_MAX_BYTES = env_int("BACKUP_INDEX_MAX_BYTES", 50_000_000)
# The admin (tracker/admin.py): mounted at /admin/ only when enabled; its login
# attempts per address per hour, counted as the allowance counts games.
ADMIN_ENABLED = env_bool("ADMIN_ENABLED", False)
ADMIN_LOGINS_PER_HOUR = env_int("ADMIN_LOGINS_PER_HOUR", 10)
# A request body larger than the largest upload and its form is refused (413)
# from its Content-Length, before anything reads it.
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", TABLE_FILE_MAX_BYTES + 1_000_000)
# Streams of pushed updates one address may hold on one worker (tracker/live/hub.py);
# the page of a phone refused polls instead.
STREAMS_PER_ADDRESS = env_int("STREAMS_PER_ADDRESS", 32)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # "Not Found: /g/Abc…/": a link's token shortened in every line (tracker/logs.py).
    "filters": {"short_links": {"()": "tracker.logs.ShortLinks"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["short_links"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
