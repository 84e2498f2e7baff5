import importlib
import json
import os
from pathlib import Path

import pytest
from django.urls import clear_url_caches
from django.utils import translation
from hypothesis import settings as hypothesis_settings
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = Path(__file__).resolve().parent.parent

# CI=true (as CI sets it): a browser or PostgreSQL test that would skip fails
# instead, saying why, so a green CI run always means both ran.
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
MUST_RUN = {"browser": "browser", "postgres": "PostgreSQL"}

# Hypothesis: in CI the same examples every run, with the examples that once
# failed kept in test-output/hypothesis and tried first. Hypothesis refuses
# derandomize=True together with a database, so the profile derandomizes the
# way --hypothesis-seed does: one fixed seed (HYPOTHESIS_SEED, default 0) for
# every test. HYPOTHESIS_PROFILE=ci picks the profile outside CI too.
hypothesis_settings.register_profile(
    "ci",
    database=DirectoryBasedExampleDatabase(ROOT / "test-output" / "hypothesis"),
    print_blob=True,
)
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "default")
hypothesis_settings.load_profile(HYPOTHESIS_PROFILE)
if HYPOTHESIS_PROFILE == "ci":
    from hypothesis import core as hypothesis_core

    # Hypothesis' pytest plugin sets the same after this, from --hypothesis-seed if given.
    hypothesis_core.global_force_seed = int(os.environ.get("HYPOTHESIS_SEED", "0"))


def _examples_dir():
    """../shared/docs/examples beside the repo (also from mutmut's copy in test-output/)."""
    for parent in Path(__file__).resolve().parents:
        found = parent / "shared" / "docs" / "examples"
        if found.is_dir():
            return found
    return ROOT.parent / "shared" / "docs" / "examples"


EXAMPLES = _examples_dir()


LOCALE = Path(__file__).resolve().parent.parent / "locale"


@pytest.fixture(scope="session", autouse=True)
def _compiled_messages():
    """Build the .mo files (`make test` does too) when a .po is newer, so a
    test run on a fresh clone sees the Hindi pages."""
    stale = [
        po
        for po in LOCALE.glob("*/LC_MESSAGES/django.po")
        if not po.with_suffix(".mo").exists()
        or po.with_suffix(".mo").stat().st_mtime < po.stat().st_mtime
    ]
    if stale:
        from django.core.management import call_command

        call_command("compilemessages", locale=[po.parts[-3] for po in stale], verbosity=0)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file in WAL mode, as the app runs, not
    pytest-django's default in-memory one.

    In memory, SQLite's shared cache locks whole tables, and a lock another
    connection holds fails at once ("database table is locked: tracker_game")
    instead of waiting. The browser tests hold two connections: the live
    server's threads' and the test's own (Playwright's sync API runs an asyncio
    loop in the test's thread, and Django keeps that thread a connection of its
    own there). So a poll being served while the test ended and its rows were
    deleted failed the test. In a WAL file readers go on beside a writer, and a
    second writer waits (the app's timeout), as on a real server.
    """
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3" and not db.get("TEST", {}).get("NAME"):
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.getbasetemp() / "test.sqlite3")


@pytest.fixture(autouse=True)
def _test_settings(settings):
    # The test client speaks plain HTTP; production redirects it to HTTPS.
    settings.SECURE_SSL_REDIRECT = False
    # {% htmx_script %} calls static(), which needs collectstatic under the
    # manifest storage; tests serve static files plainly.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _default_language_after():
    """A test client's request in Hindi leaves Hindi active on the thread (the
    LocaleMiddleware activates it and nothing deactivates it): the next test
    starts in the default language again."""
    yield
    translation.deactivate()


@pytest.fixture
def admin_on(settings):
    """The admin mounted (ADMIN_ENABLED, off by default), 3 login attempts an hour
    an address; the URLs are read again, as a server started with it reads them."""
    settings.ADMIN_ENABLED = True
    settings.ADMIN_LOGINS_PER_HOUR = 3
    _read_urls_again()
    yield settings
    settings.ADMIN_ENABLED = False
    _read_urls_again()


def _read_urls_again():
    import tracker.urls

    importlib.reload(tracker.urls)
    clear_url_caches()


def example_paths():
    return sorted(EXAMPLES.glob("*.json"))


def load_example(path):
    return json.loads(Path(path).read_text())


def input_part(doc):
    return {key: value for key, value in doc.items() if key != "state"}


def must_run(item):
    """`browser` or `PostgreSQL` when CI may not skip `item`, else None.

    The SQLite pass of scripts/test.sh skips the `postgres` tests with
    TRACKER_POSTGRES_LATER set: its PostgreSQL pass runs them (or fails).
    """
    if not IN_CI:
        return None
    for marker, what in MUST_RUN.items():
        if item.get_closest_marker(marker):
            if marker == "postgres" and os.environ.get("TRACKER_POSTGRES_LATER"):
                continue
            return what
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """With CI=true, a browser or PostgreSQL test that skipped has failed, with the reason."""
    report = yield
    what = must_run(item)
    if what and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        reason = str(reason).removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"CI=true: the {what} tests must run, but this one was skipped: {reason}"
    return report


# What gives a test the database the run's settings name (pytest-django's fixtures).
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def needs_database(item):
    """Whether `item` reads or writes the database that DATABASE_URL names: it
    is marked `django_db` or `postgres` (a live gunicorn server on PostgreSQL
    is), or uses one of pytest-django's database fixtures (`live_server` too).

    The rest (the rules engine, the hand calculator, documents and pages without
    the database, the checks of the scripts and of CI, live gunicorn servers on
    a SQLite file of their own) run the same whichever database the run has."""
    if item.get_closest_marker("django_db") or item.get_closest_marker("postgres"):
        return True
    return not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


def runs_on_postgresql_too(item):
    """Whether scripts/test.sh's PostgreSQL pass runs `item`: it needs
    PostgreSQL (`postgres`), or it is marked `both_databases` (what PostgreSQL
    may do otherwise than SQLite: locks and versions, query counts, amounts and
    JSON stored and read back, imports, backups, limits, fuzzed input) and
    touches the database. Pages, forms, languages and the browser tests run on
    SQLite only: the database under them stores and reads back the same rows."""
    if item.get_closest_marker("postgres"):
        return True
    return bool(item.get_closest_marker("both_databases")) and needs_database(item)


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked `postgres` unless the suite runs on PostgreSQL.

    With TRACKER_ONLY_DATABASE_TESTS set (scripts/test.sh's PostgreSQL pass),
    keep only the tests that runs_on_postgresql_too: the SQLite pass ran the rest.
    On pytest-xdist's workers, the files with slow tests go first.
    """
    from django.conf import settings

    if os.environ.get("TRACKER_ONLY_DATABASE_TESTS"):
        kept = [item for item in items if runs_on_postgresql_too(item)]
        if len(kept) < len(items):
            left_out = [item for item in items if not runs_on_postgresql_too(item)]
            config.hook.pytest_deselected(items=left_out)
            items[:] = kept
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # scripts/test.sh's workers take a file each, in the order collected:
        # the files with slow tests first, so that a long one does not start
        # last while the other worker has nothing left to run.
        slow_files = {item.path for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: item.path not in slow_files)
    reason = os.environ.get("TRACKER_POSTGRES_SKIP")
    if not reason and settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        reason = "needs PostgreSQL: DATABASE_URL=postgres://... (`make test-postgres` sets one up)"
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker("postgres"):
                item.add_marker(skip)


# Worked games of this repository (people come and go), beside the twelve of shared/docs.
OUR_EXAMPLES = Path(__file__).resolve().parent / "examples"


def our_example_paths():
    return sorted(OUR_EXAMPLES.glob("*.json"))


def without_language_switch(page):
    """The page without the language switch of its header and the theme switch
    at its foot: the only forms on a view link, and they change nothing but the
    language and the colours this phone shows."""
    import re

    return re.sub(r'<form class="(?:language|theme)".*?</form>', "", page, flags=re.S)
