"""A real Redis server for the tests of pushed updates between servers: Debian's `redis-server`.

`redis_server()` starts one on a free port with nothing written to disk
(`--save "" --appendonly no --daemonize yes`) and stops it afterwards (the
fixture `redis` of tests/servers/fixtures.py: one for a module);
`stopped()` stops it for a while, `restart()` at once. `redis_servers()`: two
`make run` servers (tracker/asgi.py) on one database and that Redis.
scripts/redis.sh installs Debian's redis-server (as root) before `make test`;
where it is missing the tests that need it are skipped and say why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.servers.gunicorn import free_port, two_servers


def redis_skip_reason():
    if shutil.which("redis-server") is None:
        return (
            "needs Debian's redis-server: apt-get install -y redis-server (make test does, as root)"
        )
    return None


@contextlib.contextmanager
def redis_server(tmp_dir):
    """A running redis-server: yields its URL, redis://127.0.0.1:PORT/0."""
    tmp_dir = Path(tmp_dir)
    tmp_dir.mkdir(parents=True, exist_ok=True)
    pidfile = tmp_dir / "redis.pid"
    for _ in range(3):  # another process may take the free port first
        port = free_port()
        done = _start(port, tmp_dir)
        if done.returncode == 0 and _answers(port):
            break
        _stop(pidfile)
    else:
        log = (tmp_dir / "redis.log").read_text() if (tmp_dir / "redis.log").exists() else ""
        raise AssertionError(f"redis-server did not start: {done.stderr}\n{log[-2000:]}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _stop(pidfile)


def redis_servers(db, redis_url, log_dir, workers=2):
    """Two `make run` servers (not started: `with` each) on one database and one
    Redis (REDIS_URL): nothing reaches the other but through Redis."""
    return two_servers(db, log_dir, {"REDIS_URL": redis_url}, workers)


def subscribers(redis_url):
    """How many workers listen on the pushed updates' channel."""
    import redis

    numbers = redis.Redis.from_url(redis_url).pubsub_numsub("rummy_live")
    return dict(numbers).get(b"rummy_live", 0)


def restart(url, tmp_dir):
    """Stop the server `redis_server(tmp_dir)` started and start it again, empty, on its port."""
    tmp_dir = Path(tmp_dir)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    _stop(tmp_dir / "redis.pid")
    done = _start(port, tmp_dir)
    if done.returncode != 0 or not _answers(port):
        raise AssertionError(f"redis-server did not start again: {done.stderr}")


@contextlib.contextmanager
def stopped(url, tmp_dir):
    """The server `redis_server(tmp_dir)` started stopped for the block, then started
    again, empty, on its port (answering when the block's end returns)."""
    tmp_dir = Path(tmp_dir)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    _stop(tmp_dir / "redis.pid")
    try:
        yield
    finally:
        done = _start(port, tmp_dir)
        if done.returncode != 0 or not _answers(port):
            raise AssertionError(f"redis-server did not start again: {done.stderr}")


def _start(port, tmp_dir):
    return subprocess.run(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "yes",
            "--dir",
            str(tmp_dir),
            "--pidfile",
            str(tmp_dir / "redis.pid"),
            "--logfile",
            str(tmp_dir / "redis.log"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )


def _answers(port, timeout=10.0):
    import redis

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                return True
        except redis.RedisError:
            time.sleep(0.05)
    return False


def _stop(pidfile):
    """Stop only the server this module started, by the pid it wrote."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.05)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
