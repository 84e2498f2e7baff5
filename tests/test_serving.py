"""The server `make run` starts, started as it starts it (issue 27, items 4 and 9).

The gunicorn command is read from `make -n run` (only its address is changed
to 127.0.0.1 and a free port), so these tests follow the Makefile:

- `--forwarded-allow-ips='*'` made gunicorn believe any client's
  `X-Forwarded-Proto: https`, so with BEHIND_PROXY off a plain-HTTP request
  got 200 and HSTS instead of the redirect. Forwarded headers now count only
  with BEHIND_PROXY on.
- The language cookie lacked `Secure` with HTTPS on.
- The access log wrote every link whole; a log shared for help gave the
  game away. Tokens are written shortened: `/g/Abc…/deal/`.
"""

import contextlib
import http.client
import re
import subprocess
import time
import urllib.parse

import pytest

from .livegunicorn import (
    CSRF,
    ROOT,
    Browser,
    Dropped,
    ensure_static_files,
    free_port,
    live_database,
    points_game_doc,
    server_env,
)


def make_run_command(port):
    """The gunicorn command line of `make run`, on 127.0.0.1:port with one worker."""
    dry = subprocess.run(
        ["make", "-n", "run", f"PORT={port}", "WORKERS=1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = dry.replace("\\\n", " ").splitlines()
    command = next(line for line in lines if "gunicorn" in line)
    return command.replace(f"0.0.0.0:{port}", f"127.0.0.1:{port}")


@contextlib.contextmanager
def make_run(db, log_path, **env):
    port = free_port()
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            ["bash", "-c", f"exec env {make_run_command(port)}"],
            cwd=ROOT,
            env=server_env(db.url, **env),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            browser = Browser("127.0.0.1", port)
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log_path.read_text()
                with contextlib.suppress(Dropped):
                    browser.get("/favicon.ico")
                    break
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.2)
            yield browser
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    ensure_static_files()
    with live_database("sqlite", tmp_path_factory.mktemp("serving")) as live:
        live.game = live.import_game(points_game_doc(deals=1))
        yield live


def test_a_plain_http_request_claiming_https_is_redirected_without_a_proxy(db, tmp_path):
    with make_run(db, tmp_path / "log", HTTPS="on") as phone:
        answer = phone.get("/", headers={"X-Forwarded-Proto": "https"})
        assert answer.status == 301
        assert answer.location.startswith("https://")
        assert "strict-transport-security" not in answer.headers


def test_behind_a_proxy_its_x_forwarded_proto_is_believed(db, tmp_path):
    with make_run(db, tmp_path / "log", HTTPS="on", BEHIND_PROXY="on") as phone:
        answer = phone.get("/", headers={"X-Forwarded-Proto": "https"})
        assert answer.status == 200
        assert answer.headers["strict-transport-security"].startswith("max-age=")
        assert phone.get("/").status == 301  # plain HTTP that did not come through it


def test_the_logs_write_no_link_whole(db, tmp_path):
    game = db.import_game(points_game_doc(deals=1))
    edit, view = game["edit_token"], game["view_token"]
    log = tmp_path / "log"
    with make_run(db, log) as phone:
        referer = f"http://127.0.0.1/g/{edit}/?history=all"
        assert phone.get(f"/g/{edit}/", headers={"Referer": referer}).status == 200
        assert phone.get(f"/w/{view}/").status == 200
        # Refused (no CSRF token): Django logs a warning naming the path.
        assert phone.request("POST", f"/g/{edit}/deal/", fields={"version": "1"}).status == 403
        assert phone.get(f"/g/{edit}x/").status == 404
    written = log.read_text()
    assert edit not in written and view not in written
    assert edit[:20] not in written and view[:20] not in written
    short = f"/g/{edit[:3]}…/"
    assert f'"GET {short} HTTP/1.1" 200' in written  # the access log's request line
    assert f'"http://127.0.0.1{short}?history=all"' in written  # its Referer
    assert f"/w/{view[:3]}…/" in written
    assert re.search(rf"Forbidden \(CSRF[^)]*\): /g/{re.escape(edit[:3])}…/deal/", written)
    assert f"Not Found: {short}" in written


def test_with_https_the_language_cookie_is_secure(db, tmp_path):
    with make_run(db, tmp_path / "log", HTTPS="on", BEHIND_PROXY="on") as phone:
        https = {"X-Forwarded-Proto": "https", "Referer": f"https://127.0.0.1:{phone.port}/"}
        token = CSRF.search(phone.get("/", headers=https).body).group(1)
        body = urllib.parse.urlencode({"language": "hi", "next": "/", "csrfmiddlewaretoken": token})
        headers = {
            **https,
            "Host": f"127.0.0.1:{phone.port}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in phone.cookies.items()),
            "Content-Type": "application/x-www-form-urlencoded",
        }
        connection = http.client.HTTPConnection("127.0.0.1", phone.port, timeout=30)
        try:
            connection.request("POST", "/language/", body=body, headers=headers)
            answer = connection.getresponse()
            cookies = answer.headers.get_all("Set-Cookie") or []
        finally:
            connection.close()
    assert answer.status == 302
    language = [c for c in cookies if c.startswith("django_language=hi;")]
    assert len(language) == 1 and "; Secure" in language[0], cookies
