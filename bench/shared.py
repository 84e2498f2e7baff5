"""What every part of `make bench` shares: the lines it prints and judges, the
database and servers (tests/servers/gunicorn.py's), the CPU counters, the games."""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import random
import re
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT))

from tests.servers import gunicorn as livegunicorn  # noqa: E402

WORKERS = 2 * (os.cpu_count() or 1) + 1  # as `make run`
SYNC = ("tracker.wsgi:application", "--worker-class", "sync")
ASGI = livegunicorn.ASGI  # `make run`'s: tracker/asgi.py, the pushed updates' streams too
PLAYERS = ["Asha", "Ravi", "Meena", "Kiran", "Divya", "Arjun"]
ROWS = []  # (figure, target, measured, met) for the summary
LOG = []  # the open bench/out/run.log, once main() opened it


class Broken(Exception):
    """The bench itself could not run (a wrong answer, a tool failing): not a miss."""


def say(line=""):
    print(line, flush=True)
    for log in LOG:
        log.write(line + "\n")
        log.flush()


def judge(figure, measured, target, ok):
    ROWS.append((figure, target, measured, ok))
    say(f"{'PASS' if ok else 'MISS'} {figure}: {measured}  (target {target})")


def summary():
    say("\n| figure | target | measured | |\n| --- | ---: | ---: | --- |")
    for figure, target, measured, ok in ROWS:
        say(f"| {figure} | {target} | {measured} | {'PASS' if ok else '**MISS**'} |")
    met = sum(1 for row in ROWS if row[3])
    say(f"targets: {met} met, {len(ROWS) - met} missed")


def machine_line():
    import django

    gunicorn = subprocess.run([sys.executable, "-m", "gunicorn", "--version"], capture_output=True)
    cpu = re.search(r"model name\s*: (.*)", Path("/proc/cpuinfo").read_text())
    return (
        f"machine: {os.cpu_count()} cores ({cpu[1] if cpu else '?'}), "
        f"{platform.freedesktop_os_release().get('PRETTY_NAME', '?')}, Python "
        f"{platform.python_version()}, Django {django.get_version()}, SQLite "
        f"{sqlite3.sqlite_version}, {(gunicorn.stdout or gunicorn.stderr).decode().strip()}; "
        f"{datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; {load_line()}"
    )


def load_line():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def install(name):
    """scripts/NAME.sh: installs a tool when missing (as root on Debian), else says why."""
    return subprocess.run(["bash", str(ROOT / "scripts" / f"{name}.sh")], cwd=ROOT).returncode == 0


# -- the database and the servers


@contextlib.contextmanager
def database(tmp):
    """A migrated SQLite database in `tmp`, this process set up to use it (the servers' env)."""
    with livegunicorn.live_database("sqlite", tmp) as db:
        os.environ.update(
            livegunicorn.server_env(
                db.url,
                DJANGO_SETTINGS_MODULE="bench.settings",
                ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
                LIVE_DIR=str(Path(tmp) / "live"),  # the pushed updates' sockets
            )
        )
        livegunicorn.ensure_static_files()
        import django

        django.setup()
        yield db


def gunicorn(db, app=SYNC):
    """`app` under gunicorn with `make run`'s workers; its log in bench/out/gunicorn-*.log.
    The embedded fan-out even where the environment names a Redis; every phone is
    127.0.0.1, so no cap on the streams of one address."""
    env = {"DJANGO_SETTINGS_MODULE": "bench.settings", "REDIS_URL": ""}
    env.update(STREAMS_PER_ADDRESS="1000000", BARE_DIR=os.environ["LIVE_DIR"] + "-bare")
    return livegunicorn.live_server(db, OUT, WORKERS, env, app)


def server_cpu_s(server):
    """CPU seconds gunicorn's master and workers have used so far."""
    ticks = 0
    for pid in [server.process.pid, *server.worker_pids()]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")


def ours_cpu_s(*servers):
    """CPU seconds of the servers and of this process (the phones) so far."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return sum(server_cpu_s(s) for s in servers) + used.ru_utime + used.ru_stime


def machine_cpu():
    """(total, busy) jiffies of the whole machine so far."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return sum(values), sum(values) - values[3] - values[4]


def wait_quiet(limit, before):
    """Wait up to `limit` s for the other sessions to leave the CPU; say how busy it was."""
    import time

    deadline = time.monotonic() + limit
    while True:
        total, busy = machine_cpu()
        time.sleep(2)
        total2, busy2 = machine_cpu()
        share = (busy2 - busy) / max(1, total2 - total) * 100
        if share <= 25 or time.monotonic() > deadline:
            break
    noisy = "" if share <= 25 else f" after waiting {limit} s: figures are noisy"
    say(f"machine before {before}: {share:.0f} % CPU busy{noisy}; {load_line()}")


# -- the games: 6-player Points games (they never end by themselves, so every deal saves)


def random_deal(rng, names=PLAYERS):
    winner = rng.choice(names)
    results = {}
    for name in names:
        if name != winner:
            roll = rng.random()
            drops = ("first_drop", "middle_drop", "full_count")
            results[name] = drops[int(roll * 10)] if roll < 0.23 else rng.randint(2, 80)
    return {"type": "deal", "winner": winner, "results": results}


def deal_form(rng, version):
    """The deal form's fields for one random deal, made against `version`."""
    deal = random_deal(rng)
    form = {"version": str(version), "winner": str(PLAYERS.index(deal["winner"]) + 1)}
    for name, result in deal["results"].items():
        seat = PLAYERS.index(name) + 1
        form[f"r{seat}"] = result if isinstance(result, str) else "points"
        form[f"p{seat}"] = "" if isinstance(result, str) else str(result)
    return form


def points_game(rng, deals, name):
    from tracker.models import Game

    history = [random_deal(rng) for _ in range(deals)]
    made = Game.create("points", {}, PLAYERS, None, name, history)
    return {
        "id": made.pk,
        "edit": made.edit_token,
        "view": made.view_token,
        "revision": made.revision,
    }


def many_games(rng, count, deals, name):
    from django.db import transaction

    with transaction.atomic():
        return [points_game(rng, deals, f"{name} {i + 1}") for i in range(count)]


def make_games():
    rng = random.Random(13)
    return {
        "shown": points_game(rng, 50, "Bench: 50 deals"),  # the load tests', Lighthouse's
        "saves": many_games(rng, 64, 0, "Bench: saves"),  # the deal saves go round them
        "growth": {n: points_game(rng, n, f"Bench: {n} deals") for n in (10, 100, 1000)},
        "queries": {n: points_game(rng, n, f"Bench: queries {n}") for n in (5, 500)},
    }
