"""Real gunicorn servers for tests, on a database of their own.

Nothing here goes through pytest-django's test database: every server and
every `manage.py` command runs in a subprocess with DATABASE_URL pointing at
a database made for the test (a SQLite file in a tmp dir, or a PostgreSQL
database of its own, tests/servers/postgres.py).

- `live_database(backend, tmp_dir)`: a migrated database; `.import_game(doc)`,
  `.export_game(token)`, `.stored_events(game_id)` read and write it through
  the app's own commands and ORM, `.manage(*args)` runs any command: all in
  one `manage.py` process of its own (tests/servers/manage.py), which starts
  Django once rather than once a command.
- `live_server(db, log_dir, workers, env)`: `gunicorn tracker.wsgi` with several
  workers on 127.0.0.1 and a free port (`env`: more environment, e.g. REDIS_URL),
  answering before it is handed over, stopped (terminate, then kill) afterwards;
  `.worker_pids()` for the fault tests; `two_servers(db, log_dir, env)`: two
  `make run` servers on one database, each with a LIVE_DIR of its own.
- `Browser`: a standard-library HTTP client with a cookie jar, that never
  follows redirects; `deal_form(page)` reads the CSRF token and the version
  from a game page.
"""

from __future__ import annotations

import contextlib
import http.client
import http.cookies
import json
import os
import re
import secrets
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.servers.postgres import needs_postgres, postgres_database

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SECRET_KEY = "live-gunicorn-tests-only-" + "0123456789abcdef" * 3
WORKERS = 4
START_TIMEOUT = 60  # seconds for gunicorn to answer on a slow 2-core machine
REQUEST_TIMEOUT = 60
COMMAND_TIMEOUT = 180

# The two databases a live test runs on: parametrize a fixture with these.
BACKENDS = ["sqlite", pytest.param("postgres", marks=needs_postgres)]


# ------------------------------------------------------------ subprocesses


def server_env(database_url, **extra):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "HTTPS", "DEBUG", "SECURE_SSL_REDIRECT", "BEHIND_PROXY")
    }
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="tracker.settings",
        HTTPS="off",
        DEBUG="0",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        GAMES_PER_HOUR="100000",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def run_manage(database_url, *args, stdin=None, **env):
    """`manage.py ARGS` on that database (`env`: more environment), as it ended."""
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=server_env(database_url, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )


def manage(database_url, *args, stdin=None):
    """Run `manage.py ARGS` on that database; returns its stdout, fails with its stderr."""
    done = run_manage(database_url, *args, stdin=stdin)
    if done.returncode != 0:
        raise AssertionError(
            f"manage.py {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
        )
    return done.stdout


class Commands:
    """`manage.py` commands on one database, run one at a time by a single
    process (tests/servers/manage.py) started at the first and stopped by `.stop()`:
    the same commands, output and exit codes as `manage(database_url, ...)`."""

    def __init__(self, database_url, log_path):
        self.database_url = database_url
        self.log_path = Path(log_path)
        self.process = None
        self.lock = threading.Lock()

    def run(self, *args, stdin=None):
        """Run `manage.py ARGS`; returns its stdout, fails with its stderr."""
        with self.lock:
            if self.process is None:
                with open(self.log_path, "a") as log:
                    self.process = subprocess.Popen(
                        [PYTHON, "-m", "tests.servers.manage"],
                        cwd=ROOT,
                        env=server_env(self.database_url),
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=log,
                        text=True,
                    )
            self.process.stdin.write(json.dumps({"args": list(args), "stdin": stdin}) + "\n")
            self.process.stdin.flush()
            ready, _, _ = select.select([self.process.stdout], [], [], COMMAND_TIMEOUT)
            line = self.process.stdout.readline() if ready else ""
            if not line:
                self.stop()
                raise AssertionError(
                    f"manage.py {' '.join(args)}: no answer "
                    f"({'timed out' if not ready else 'the process ended'}); "
                    f"its log:\n{self.log_path.read_text(errors='replace')[-3000:]}"
                )
        done = json.loads(line)
        if done["returncode"] != 0:
            raise AssertionError(
                f"manage.py {' '.join(args)} exited {done['returncode']}:\n{done['stderr'][-3000:]}"
            )
        return done["stdout"]

    def stop(self):
        if self.process is None:
            return
        self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        self.process.stdout.close()
        self.process = None


_static_checked = False


def ensure_static_files():
    """DEBUG=0 serves static files through the manifest of `collectstatic`.

    Pages name their CSS and JavaScript by hashed name, so a missing or stale
    staticfiles/ would answer 500 for reasons that are not under test. Run
    collectstatic (as `make run` does; staticfiles/ is generated and
    git-ignored) only when the manifest misses a file of static/ or is older.
    """
    global _static_checked
    if _static_checked:
        return
    manifest = ROOT / "staticfiles" / "staticfiles.json"
    stale = not manifest.exists()
    if not stale:
        paths = json.loads(manifest.read_text()).get("paths", {})
        made = manifest.stat().st_mtime
        for path in (ROOT / "static").rglob("*"):
            if path.is_file() and (
                path.relative_to(ROOT / "static").as_posix() not in paths
                or path.stat().st_mtime > made
            ):
                stale = True
                break
    if stale:
        manage("", "collectstatic", "--noinput", "-v", "0")
    _static_checked = True


# What `make run` serves: tracker/asgi.py on gunicorn's ASGI worker (streams and pages).
ASGI = ("tracker.asgi:application", "--worker-class", "tracker.serving.Worker")


# ------------------------------------------------------------ databases


@dataclass
class LiveDatabase:
    backend: str  # "sqlite" or "postgres"
    url: str
    commands: Commands
    path: Path | None = None  # the SQLite file

    def manage(self, *args, stdin=None):
        return self.commands.run(*args, stdin=stdin)

    def import_game(self, doc):
        """Create a game from a game document: {"id", "edit_url", "view_url"} plus tokens."""
        line = json.loads(self.manage("import_game", "-", stdin=json.dumps(doc)))
        line["edit_token"] = line["edit_url"].strip("/").split("/")[1]
        line["view_token"] = line["view_url"].strip("/").split("/")[1]
        return line

    def export_game(self, token):
        """The game document as `manage.py export_game` prints it."""
        return json.loads(self.manage("export_game", token))

    def stored_events(self, game_id):
        """What the ORM reads of a game's rows: event positions, types, data, and the revision."""
        code = (
            "import json\n"
            "from tracker.models import Event, Game\n"
            f"game = Game.objects.get(pk={int(game_id)})\n"
            "rows = list(Event.objects.filter(game=game).order_by('position', 'pk')"
            ".values_list('position', 'type', 'data'))\n"
            "print(json.dumps({'revision': game.revision, 'players': game.seat_names(),"
            " 'events': rows}))\n"
        )
        out = self.manage("shell", "-c", code)
        return json.loads(out.strip().splitlines()[-1])


@contextlib.contextmanager
def live_database(backend, tmp_dir, migrated=True):
    """A freshly migrated database for live servers (`migrated=False`: empty); dropped
    (PostgreSQL) at the end."""
    tmp_dir = Path(tmp_dir)
    tmp_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as cleanup:
        path = tmp_dir / "live.sqlite3" if backend == "sqlite" else None
        url = f"sqlite:///{path}" if path else cleanup.enter_context(postgres_database())
        db = LiveDatabase(backend, url, Commands(url, tmp_dir / "manage.log"), path)
        cleanup.callback(db.commands.stop)  # before the database is dropped
        if migrated:
            db.manage("migrate", "--noinput", "-v", "0")
        yield db


# ------------------------------------------------------------ servers


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def children_of(pid):
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


@dataclass
class LiveServer:
    db: LiveDatabase
    log_path: Path
    workers: int = WORKERS
    env: dict = field(default_factory=dict)  # more environment, e.g. REDIS_URL
    # The application and its worker: `make run`'s is ASGI=("tracker.asgi:application",
    # "--worker-class", "tracker.serving.Worker"); more gunicorn arguments after them.
    app: tuple = ("tracker.wsgi",)
    graceful_timeout: int = 5
    root: Path = ROOT  # the checkout whose code it serves
    port: int = 0
    process: subprocess.Popen | None = None
    _log: object = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def browser(self):
        return Browser("127.0.0.1", self.port)

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def start(self, port=None):
        """Start on a free port, or on `port` (a restart on the port it had)."""
        for _ in range(3):  # another process may take the free port first
            self.port = port or free_port()
            self._log = open(self.log_path, "a")  # noqa: SIM115 (closed in stop())
            self.process = subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "gunicorn",
                    *self.app,
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--workers",
                    str(self.workers),
                    "--timeout",
                    "60",
                    "--graceful-timeout",
                    str(self.graceful_timeout),
                    # Not gunicorn's one control socket for every server of this user.
                    "--no-control-socket",
                ],
                cwd=self.root,
                env=server_env(self.db.url, **self.env),
                stdout=self._log,
                stderr=subprocess.STDOUT,
            )
            if self._wait_until_answering():
                return self
            self.stop()
            if "in use" not in self.log_text():
                break
        raise AssertionError(f"gunicorn did not start:\n{self.log_text()[-4000:]}")

    def _wait_until_answering(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                answer = self.browser().get("/favicon.ico")
            except Dropped:
                time.sleep(0.2)
                continue
            if answer.status < 500 and len(self.worker_pids()) == self.workers:
                return True
            time.sleep(0.2)
        return False

    def worker_pids(self):
        return children_of(self.process.pid) if self.process else []

    def wait_for_workers(self, timeout=START_TIMEOUT):
        """Wait until the master has its full count of workers again."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.worker_pids()) == self.workers:
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        if self.process is None:
            return
        workers = self.worker_pids()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
        # Workers left behind by a killed master: only the ones it started.
        for pid in workers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None


@contextlib.contextmanager
def live_server(
    db, log_dir, workers=WORKERS, env=None, app=("tracker.wsgi",), graceful_timeout=5, root=ROOT
):
    ensure_static_files()
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"gunicorn-{secrets.token_hex(3)}.log"
    # The streams' sockets in a short folder of its own unless `env` names one: not
    # in the checkout's var/live.
    with tempfile.TemporaryDirectory(prefix="live-", dir="/tmp") as live_dir:
        env = {"LIVE_DIR": live_dir, **(env or {})}
        server = LiveServer(db, log, workers, env, app, graceful_timeout, root)
        server.start()
        try:
            yield server
        finally:
            server.stop()


def two_servers(db, log_dir, env, workers=2):
    """Two `make run` servers (not started: `with` each) on one database, as two
    machines behind one name would be: each has a LIVE_DIR of its own (short, under
    /tmp: it holds sockets), so nothing reaches the other but through what `env`
    names (REDIS_URL, LIVE_FANOUT=postgres)."""
    made = []
    for name in ("one", "two"):
        folder = tempfile.mkdtemp(prefix=f"live-{name}-", dir="/tmp")
        env = {**env, "LIVE_DIR": folder}
        made.append(live_server(db, Path(log_dir) / name, workers=workers, env=env, app=ASGI))
    return made


def in_threads(target, count, timeout):
    """target(0) ... target(count - 1), each in a thread of its own (phones posting at
    once), all started before any is waited for; the seconds until every one ended."""
    started = time.monotonic()
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread never came back"
    return time.monotonic() - started


# ------------------------------------------------------------ HTTP


class Dropped(Exception):
    """The connection broke before an answer came (a killed worker, say)."""


@dataclass
class Answer:
    status: int
    headers: dict
    body: str

    @property
    def location(self):
        return self.headers.get("location", "")


@dataclass
class Browser:
    """One phone: its own cookies, one request per connection, no redirects followed."""

    host: str
    port: int
    cookies: dict = field(default_factory=dict)
    timeout: float = REQUEST_TIMEOUT

    def request(self, method, path, fields=None, headers=None):
        send = {"Host": f"{self.host}:{self.port}", "Connection": "close", **(headers or {})}
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields, doseq=True)
            send["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            send["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body, headers=send)
            response = connection.getresponse()
            text = response.read().decode("utf-8", errors="replace")
        except (OSError, http.client.HTTPException) as error:
            raise Dropped(f"{method} {path}: {error!r}") from error
        finally:
            connection.close()
        for line in response.headers.get_all("Set-Cookie") or []:
            jar = http.cookies.SimpleCookie()
            jar.load(line)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, text)

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, fields, csrf_token):
        fields = {**fields, "csrfmiddlewaretoken": csrf_token}
        return self.request("POST", path, fields=fields, headers={"X-CSRFToken": csrf_token})


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
VERSION = re.compile(r'name="version" value="(\d+)"')
REVISION = re.compile(r'data-revision="(\d+)"')


def deal_form(page):
    """(csrf token, version) from a game page that shows the deal form."""
    token = CSRF.search(page)
    version = VERSION.search(page)
    if token is None or version is None:
        raise AssertionError(f"no deal form in the page:\n{page[:2000]}")
    return token.group(1), int(version.group(1))


def revision_of(page):
    found = REVISION.search(page)
    if found is None:
        raise AssertionError(f"no data-revision in the page:\n{page[:2000]}")
    return int(found.group(1))


# ------------------------------------------------------------ games and deals

NAMES = ["Asha", "Ravi", "Meena", "Kiran"]
# Points a loser may score in a Points game: 0, or 2 to 80 (aces count 10).
POINTS = [0, *range(2, 81)]


def points_game_doc(name="Live test", deals=0):
    """A Points game document: it never ends by itself, so every deal is accepted."""
    history = [deal_event(k) for k in range(10_000, 10_000 + deals)]
    return {
        "schema": "rummy-tracker.game/1",
        "name": name,
        "format": "points",
        "rules": {"point_value": "1"},
        "players": NAMES,
        "first_dealer": NAMES[0],
        "history": history,
    }


def deal_event(k):
    """Deal number k as an event: its winner and results tell k back (k < 4 * 80 * 80)."""
    winner = NAMES[k % 4]
    first, second = divmod(k // 4, len(POINTS))
    losers = [n for n in NAMES if n != winner]
    points = [POINTS[first % len(POINTS)], POINTS[second], 5]
    return {"type": "deal", "winner": winner, "results": dict(zip(losers, points, strict=True))}


def deal_fields(k, version):
    """The deal form's fields for deal k, made against `version` events."""
    event = deal_event(k)
    seat = {name: i for i, name in enumerate(NAMES, start=1)}
    fields = {"winner": str(seat[event["winner"]]), "version": str(version)}
    for name, points in event["results"].items():
        fields[f"r{seat[name]}"] = "points"
        fields[f"p{seat[name]}"] = str(points)
    return fields


def deal_number(event):
    """k back from a stored deal made by deal_event(k), or None for any other event."""
    if event.get("type") != "deal" or event.get("winner") not in NAMES:
        return None
    w = NAMES.index(event["winner"])
    losers = [n for n in NAMES if n != event["winner"]]
    try:
        points = [event["results"][n] for n in losers]
        k = w + 4 * (POINTS.index(points[0]) * len(POINTS) + POINTS.index(points[1]))
    except (KeyError, ValueError, TypeError):
        return None
    return k if deal_event(k) == event else None


def check_points_state(doc):
    """The exported state of a points game at 1 a point (points_game_doc) against
    figures worked out from its history by rules.md, not by the engine: every loser
    pays the winner their points, the deal passes to the next seat each time."""
    balance = dict.fromkeys(NAMES, 0)
    lost = dict.fromkeys(NAMES, 0)
    for event in doc["history"]:
        for name, points in event["results"].items():
            balance[name] -= points
            balance[event["winner"]] += points
            lost[name] += points
    state = doc["state"]
    assert (state["status"], state["deals_played"]) == ("in_progress", len(doc["history"]))
    assert state["next_dealer"] == NAMES[len(doc["history"]) % len(NAMES)]
    assert [(p["name"], p["total"], p["balance"], p["amount"]) for p in state["players"]] == [
        (name, lost[name], balance[name], f"{balance[name]}.00") for name in NAMES
    ]
