import json
import os
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "shared" / "docs" / "examples"


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


def example_paths():
    return sorted(EXAMPLES.glob("*.json"))


def load_example(path):
    return json.loads(Path(path).read_text())


def input_part(doc):
    return {key: value for key, value in doc.items() if key != "state"}


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked `postgres` unless the suite runs on PostgreSQL."""
    from django.conf import settings

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
    """The page without the English / हिंदी switch of its header: the one form
    on a view link, and it changes nothing but the language."""
    import re

    return re.sub(r'<form class="language".*?</form>', "", page, flags=re.S)
