"""The tools a bench run drives, installed by the scripts in scripts/ when missing
(as root on Debian): wrk (scripts/wrk.sh), chromium (scripts/chromium.sh) and
Lighthouse (scripts/lighthouse.sh, pinned by bench/package.json)."""

from __future__ import annotations

import shutil
import subprocess

from bench.report import ROOT, say

LIGHTHOUSE = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"


def _script(name):
    """Run scripts/NAME.sh (its messages on stderr); whether it succeeded."""
    return subprocess.run(["bash", str(ROOT / "scripts" / f"{name}.sh")], cwd=ROOT).returncode == 0


def wrk():
    """The wrk command, or None (and why not, said)."""
    if shutil.which("wrk") or _script("wrk"):
        return shutil.which("wrk")
    say("wrk: missing and not installed (scripts/wrk.sh said why)")
    return None


def chromium():
    """The chromium command (and the pages' fonts), or None (scripts/chromium.sh said why not)."""
    _script("chromium")  # never fails; says why when chromium cannot be had
    return shutil.which("chromium")


def lighthouse():
    """(the lighthouse command, the chromium command), or None (and why not, said)."""
    browser = chromium()
    if browser is None:
        say("lighthouse: not run: chromium is missing (scripts/chromium.sh said why)")
        return None
    if not _script("lighthouse"):
        say("lighthouse: not run: not installed (scripts/lighthouse.sh said why)")
        return None
    return str(LIGHTHOUSE), browser


def version(*cmd):
    """The first line a tool says of its version (`wrk -v` says it and exits 1)."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0] if lines else "?"
