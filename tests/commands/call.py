"""A management command as a test calls it: in the test's process, on
pytest-django's database, its output returned as text."""

import io
import json

from django.core.management import call_command


def run(command, *args):
    """What `manage.py COMMAND ARGS` prints."""
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def import_file(tmp_path, doc):
    """The game document `doc` imported from a file: the line import_game prints, read."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    return json.loads(run("import_game", str(path)))
