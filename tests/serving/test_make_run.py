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
import select
import socket
import subprocess
import tempfile
import time
import urllib.parse

import pytest

from tests.servers.gunicorn import (
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
from tests.servers.stream import EventStream


def make_run_command(port, *args):
    """The gunicorn command line of `make run ARGS`, on 127.0.0.1:port with one worker."""
    dry = subprocess.run(
        ["make", "-n", "run", f"PORT={port}", "WORKERS=1", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = dry.replace("\\\n", " ").splitlines()
    return next(line for line in lines if "gunicorn " in line)


@contextlib.contextmanager
def make_run(db, log_path, **env):
    port = free_port()
    # Its sockets (gunicorn's control socket, the streams') in a short folder of its
    # own, not in the checkout's var/.
    with open(log_path, "w") as log, tempfile.TemporaryDirectory(dir="/tmp") as var:
        command = make_run_command(port, "BIND_HOST=127.0.0.1", f"CONTROL_SOCKET={var}/ctl")
        process = subprocess.Popen(
            ["bash", "-c", f"exec env {command}"],
            cwd=ROOT,
            env=server_env(db.url, LIVE_DIR=f"{var}/live", **env),
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


# -- issues 36 and 37: the ASGI side, the streams' limits, the logs, the proxy, Host


def exchange(port, data, timeout=20):
    """Send raw bytes; (status, {header: value}, body) of the answer, read to its end."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = read_to_the_end(sock)
    return parse(answer)


def read_to_the_end(sock):
    answer = b""
    with contextlib.suppress(ConnectionError):
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def parse(answer):
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


SECURITY = [
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "cross-origin-opener-policy",
    "permissions-policy",
]


@pytest.mark.slow
def test_a_chunked_body_over_the_limit_is_refused_before_it_is_all_sent(db, tmp_path):
    # No Content-Length to refuse it by: it was read whole (to a temporary file) and
    # answered 403 once all 64 MiB had come. Now it is read to the limit and no further.
    with make_run(db, tmp_path / "log", REQUEST_MAX_BYTES="1000000") as phone:
        sock = socket.create_connection(("127.0.0.1", phone.port), timeout=30)
        with sock:
            sock.sendall(
                b"POST /import/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                b"Content-Type: multipart/form-data; boundary=zz\r\n\r\n"
            )
            piece = b"x" * 65_536
            total, sent = 64 << 20, 0
            while sent < total and not select.select([sock], [], [], 0)[0]:
                try:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                except OSError:
                    break  # the server answered and closed: the rest is not taken
                sent += len(piece)
            status, headers, body = parse(read_to_the_end(sock))
    assert status == 413
    assert "nothing was read or changed" in body.decode()
    assert headers["x-frame-options"] == "DENY"
    assert sent < total // 4, sent


@pytest.mark.slow
def test_a_slow_upload_holds_up_no_page(db, tmp_path):
    with make_run(db, tmp_path / "log") as phone:
        slow = socket.create_connection(("127.0.0.1", phone.port), timeout=30)
        with slow:
            slow.sendall(
                b"POST /language/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\nlanguage="
            )
            # The one worker's Django answers while that body is still on its way.
            answer = Browser("127.0.0.1", phone.port, timeout=10).get("/calculator/")
            assert answer.status == 200


@pytest.mark.slow
def test_with_https_every_path_goes_to_https_streams_too(db, tmp_path):
    game = db.game
    with make_run(db, tmp_path / "log", HTTPS="on") as phone:
        for path in (f"/g/{game['edit_token']}/stream", f"/w/{game['view_token']}/stream", "/"):
            with EventStream(phone.port, path) as answer:
                assert answer.status == 301, path
                assert answer.headers["location"] == f"https://127.0.0.1:{phone.port}{path}"
                assert answer.headers["x-frame-options"] == "DENY"
                assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


@pytest.mark.slow
def test_every_answer_carries_the_same_security_headers(db, tmp_path):
    game = db.game
    stream = f"/g/{game['edit_token']}/stream"
    with make_run(db, tmp_path / "log") as phone:
        page = phone.get("/")
        assert page.status == 200
        expected = {name: page.headers[name] for name in SECURITY}
        answers = {
            "a stream's link wrong": "GET /g/no-such-game/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "a stream posted": f"POST {stream} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0",
            "a Host not allowed": "GET / HTTP/1.1\r\nHost: elsewhere.example\r\n",
            "no Host": "GET / HTTP/1.1\r\n",
        }
        statuses = {}
        for what, head in answers.items():
            request = f"{head.rstrip()}\r\nConnection: close\r\n\r\n"
            status, headers, _ = exchange(phone.port, request.encode())
            statuses[what] = status
            assert {name: headers.get(name) for name in SECURITY} == expected, what
        with EventStream(phone.port, stream) as held:
            assert held.status == 200
            assert {name: held.headers.get(name) for name in SECURITY} == expected
    assert statuses == {
        "a stream's link wrong": 404,
        "a stream posted": 403,  # without a CSRF token
        "a Host not allowed": 400,
        "no Host": 400,
    }


@pytest.mark.slow
def test_an_http_1_1_request_without_host_is_refused(db, tmp_path):
    with make_run(db, tmp_path / "log") as phone:
        assert exchange(phone.port, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")[0] == 400
        path = f"/g/{db.game['edit_token']}/stream"
        assert exchange(phone.port, f"GET {path} HTTP/1.1\r\n\r\n".encode())[0] == 400
        assert exchange(phone.port, b"GET / HTTP/1.0\r\n\r\n")[0] == 200  # HTTP/1.0 may omit it


@pytest.mark.slow
def test_streams_from_one_address_are_capped_and_the_refused_told_so(db, tmp_path):
    game = db.game
    path = f"/w/{game['view_token']}/stream"
    with make_run(db, tmp_path / "log", STREAMS_PER_ADDRESS="3") as phone:
        held = [EventStream(phone.port, path) for _ in range(3)]
        try:
            assert [stream.status for stream in held] == [200, 200, 200]
            with EventStream(phone.port, path) as refused:
                assert refused.status == 429
                assert refused.headers["retry-after"] == "60"
                assert refused.headers["x-frame-options"] == "DENY"
                assert refused.ended(timeout=10)
            held.pop().close()
            # Once the worker has seen that stream go, its place is free again.
            deadline = time.monotonic() + 20
            while True:
                again = EventStream(phone.port, path)
                if again.status == 200:
                    held.append(again)
                    break
                again.close()
                assert time.monotonic() < deadline, "the stream closed was never let go"
        finally:
            for stream in held:
                stream.close()


@pytest.mark.slow
def test_a_connection_that_never_finishes_its_request_head_is_closed(db, tmp_path):
    with make_run(db, tmp_path / "log", HEADER_TIMEOUT="1") as phone:
        with socket.create_connection(("127.0.0.1", phone.port), timeout=15) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            began = time.monotonic()
            assert read_to_the_end(sock) == b""  # closed, with no answer
            assert time.monotonic() - began < 10
        assert phone.get("/").status == 200  # a whole head is served as ever


@pytest.mark.slow
def test_the_logs_write_no_link_whole_when_it_is_percent_encoded(db, tmp_path):
    game = db.import_game(points_game_doc(deals=1))
    edit, view = game["edit_token"], game["view_token"]
    log = tmp_path / "log"
    with make_run(db, log) as phone:
        referer = f"http://127.0.0.1/%67/{edit}/"
        assert phone.get(f"/%67/{edit}/", headers={"Referer": referer}).status == 200
        assert phone.get(f"/%2567/{edit}/").status == 404
        with EventStream(phone.port, f"/%77/{view}/stream") as watching:
            assert watching.status == 200
    written = log.read_text()
    assert edit[3:13] not in written and view[3:13] not in written
    assert f'"GET /g/{edit[:3]}…/ HTTP/1.1" 200' in written
    assert f'"http://127.0.0.1/g/{edit[:3]}…/"' in written
    assert f"/w/{view[:3]}…/stream" in written


def make_run_dry(*args):
    return subprocess.run(
        ["make", "-n", "run", "PORT=8123", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_behind_a_proxy_make_run_listens_on_this_machine_only():
    assert "--bind 0.0.0.0:8123" in make_run_dry()
    assert "--bind 127.0.0.1:8123" in make_run_dry("BEHIND_PROXY=on")
    # Told to listen on every interface all the same, it says loudly what that means.
    wide = make_run_dry("BEHIND_PROXY=on", "BIND_HOST=0.0.0.0")
    assert "--bind 0.0.0.0:8123" in wide and "reachable by the proxy ONLY" in wide
