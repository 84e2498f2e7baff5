"""`manage.py` for one live database, in one process that starts Django once.

tests/servers/gunicorn.py runs every command of a live database (migrate,
import_game, export_game, shell -c ...) through this: a subprocess with that
database's environment, which reads one request a line on its standard input,
{"args": [...], "stdin": "..."}, runs `manage.py ARGS` the way manage.py does
(django.core.management.execute_from_command_line, with standard input, output
and error swapped for the request's), and answers one line on its standard
output, {"returncode": N, "stdout": "...", "stderr": "..."}.

A new `manage.py` process for each command spent about a second (more on a
busy machine) starting Python and Django, most of a live test's own time.
Each command still closes its database connections when it ends (Django's
run_from_argv does), so the next one reads what the servers wrote since.
"""

import contextlib
import io
import json
import os
import sys
import traceback


def run(args, stdin):
    from django.core.management import execute_from_command_line

    out, err = io.StringIO(), io.StringIO()
    returncode = 0
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        swapped_stdin(io.StringIO(stdin)),
    ):
        try:
            execute_from_command_line(["manage.py", *args])
        except SystemExit as done:  # a CommandError's exit, say, as manage.py exits
            code = done.code
            returncode = code if isinstance(code, int) else (0 if code is None else 1)
            if isinstance(code, str):
                err.write(code + "\n")
        except BaseException:  # as Python would: the traceback on stderr, exit 1
            traceback.print_exc(file=err)
            returncode = 1
    return {"returncode": returncode, "stdout": out.getvalue(), "stderr": err.getvalue()}


@contextlib.contextmanager
def swapped_stdin(stream):
    previous, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = previous


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")
    requests, answers = sys.stdin, sys.stdout
    for line in requests:
        request = json.loads(line)
        answers.write(json.dumps(run(request["args"], request.get("stdin") or "")) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
