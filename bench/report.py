"""What `make bench` prints: one line a figure (kept in bench/out/run.log too),
each target met or missed, and the summary table at the end."""

from __future__ import annotations

import datetime
import os
import platform
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"


class Broken(Exception):
    """The benchmark itself could not run (a wrong answer, a tool failing), not a missed target."""


_log = None


def open_log(name="run.log"):
    global _log
    OUT.mkdir(parents=True, exist_ok=True)
    _log = (OUT / name).open("w")


def forget_server_logs():
    for old in OUT.glob("gunicorn-*.log"):
        old.unlink()


def check_server_logs():
    """Say so when a server of this run logged a traceback (a figure may hide a 500)."""
    if "Traceback" in "".join(p.read_text() for p in OUT.glob("gunicorn-*.log")):
        say("warning: gunicorn logged a traceback: see bench/out/gunicorn-*.log")


def say(line=""):
    print(line, flush=True)
    if _log is not None:
        _log.write(line + "\n")
        _log.flush()


@dataclass
class Row:
    figure: str
    measured: str
    target: str = ""  # "" when the figure has none: printed only
    ok: bool | None = None  # None: no target, or not measured


ROWS: list[Row] = []


def judge(figure, measured, target="", ok=None):
    """Say a figure against its target (PASS or MISS) and keep it for the summary."""
    row = Row(figure, measured, target, ok if target else None)
    ROWS.append(row)
    verdict = {True: "PASS", False: "MISS", None: "    "}[row.ok]
    say(f"{verdict} {figure}: {measured}" + (f"  (target {target})" if target else ""))
    return row


def summary():
    """The table of every judged figure, as Markdown (bench/README.md keeps the latest)."""
    say()
    say("| figure | measured | target | |")
    say("| --- | ---: | ---: | --- |")
    for row in ROWS:
        verdict = {True: "PASS", False: "**MISS**", None: ""}[row.ok]
        say(f"| {row.figure} | {row.measured} | {row.target} | {verdict} |")
    met = sum(1 for r in ROWS if r.ok)
    missed = sum(1 for r in ROWS if r.ok is False)
    say(f"targets: {met} met, {missed} missed")
    return missed


def load_line():
    """The machine's load average now, as `uptime` gives it: others share these cores."""
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_line():
    import django

    gunicorn = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--version"], capture_output=True, text=True
    )
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = platform.freedesktop_os_release().get("PRETTY_NAME", platform.system())
    return (
        f"machine: {os.cpu_count()} cores ({model}), {system}, Python "
        f"{platform.python_version()}, Django {django.get_version()}, SQLite "
        f"{sqlite3.sqlite_version}, {(gunicorn.stdout or gunicorn.stderr).strip()}; "
        f"{datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}"
    )
