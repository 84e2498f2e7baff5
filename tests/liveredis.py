"""A real Redis server for the shared-cache tests: Debian's `redis-server`.

`redis_server()` starts one on a free port with nothing written to disk
(`--save "" --appendonly no --daemonize yes`) and stops it afterwards.
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

from .livegunicorn import free_port


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


def restart(url, tmp_dir):
    """Stop the server `redis_server(tmp_dir)` started and start it again, empty, on its port."""
    tmp_dir = Path(tmp_dir)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    _stop(tmp_dir / "redis.pid")
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
