"""CI cannot skip what matters: with CI=true a browser test without chromium and a
PostgreSQL test without a server fail, saying why; outside CI they skip, saying why.

Each case runs pytest (or scripts/test.sh) in a subprocess with a PATH from
which chromium and apt-get are hidden, as on a machine where neither exists.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = {"chromium", "chromium-browser", "apt-get"}


@pytest.fixture(scope="module")
def bare_path(tmp_path_factory):
    """A PATH with every command of this one but chromium and apt-get."""
    bin_dir = tmp_path_factory.mktemp("bare-bin")
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            target = bin_dir / entry.name
            if entry.name in HIDDEN or target.exists() or not os.access(entry.path, os.X_OK):
                continue
            target.symlink_to(entry.path)
    return str(bin_dir)


def environment(bare_path, ci, **extra):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI", "DATABASE_URL", "TRACKER_POSTGRES_SKIP", "TRACKER_POSTGRES_LATER")
        and not key.startswith(("PYTEST_", "HYPOTHESIS_"))
    }
    env.update(PATH=bare_path, **extra)
    if ci:
        env["CI"] = "true"
    return env


def pytest_run(env, tmp_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfEs", *args],
        cwd=ROOT,
        env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


BROWSER_TEST = "tests/browser/test_smoke.py"


def test_in_ci_a_browser_test_without_chromium_fails_with_the_reason(bare_path, tmp_path):
    run = pytest_run(environment(bare_path, ci=True), tmp_path, BROWSER_TEST)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert re.search(r"\b1 (failed|error)\b", out), out  # a fixture's failure is an error
    assert "CI=true: the browser tests must run, but this one was skipped" in out, out
    assert "Debian's chromium is not installed" in out, out


def test_outside_ci_a_browser_test_without_chromium_skips_with_the_reason(bare_path, tmp_path):
    run = pytest_run(environment(bare_path, ci=False), tmp_path, BROWSER_TEST)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "1 skipped" in out, out
    assert "Debian's chromium is not installed" in out, out


POSTGRES_TEST = "tests/test_database.py::test_the_postgresql_pass_runs_on_a_postgresql_server"


def test_in_ci_a_postgresql_test_without_a_server_fails_with_the_reason(bare_path, tmp_path):
    env = environment(bare_path, ci=True, TRACKER_POSTGRES_SKIP="no server for this check")
    run = pytest_run(env, tmp_path, POSTGRES_TEST)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "CI=true: the PostgreSQL tests must run, but this one was skipped" in out, out
    assert "no server for this check" in out, out


def test_outside_ci_a_postgresql_test_without_a_server_skips(bare_path, tmp_path):
    env = environment(bare_path, ci=False, TRACKER_POSTGRES_SKIP="no server for this check")
    run = pytest_run(env, tmp_path, POSTGRES_TEST)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "1 skipped" in out and "no server for this check" in out, out


def test_the_sqlite_pass_in_ci_leaves_the_postgresql_tests_to_the_postgresql_pass(
    bare_path, tmp_path
):
    env = environment(bare_path, ci=True, TRACKER_POSTGRES_LATER="1")
    run = pytest_run(env, tmp_path, POSTGRES_TEST)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "1 skipped" in out, out


def test_in_ci_test_sh_fails_when_postgresql_cannot_be_had(bare_path, tmp_path):
    """scripts/test.sh's PostgreSQL pass, with no DATABASE_URL and no apt-get to install one."""
    env = environment(
        bare_path,
        ci=True,
        BIN=str(Path(sys.executable).parent),
        PYTEST_ARGS="-p no:cacheprovider tests/test_database.py",  # no .pytest_cache here
        TMPDIR=str(tmp_path),
        TEST_OUTPUT=str(tmp_path / "out"),
    )
    run = subprocess.run(
        ["bash", "scripts/test.sh", "postgres"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "PostgreSQL pass not run: PostgreSQL not set up: this is not a Debian machine" in out
    assert "CI=true: the PostgreSQL pass must run" in out, out
    assert "FAILED (CI=true, no PostgreSQL)" in out, out
