"""What the test client cannot send, sent by socket to a live gunicorn (issue 27, items 5 and 6).

A body announced as 300 MB was read in full (to temporary files) before its
403; now it is answered 413 from its Content-Length before any of it is
read, on a page that takes uploads and on one that takes none. Raw bytes and
doubled or missing headers are answered without a 5xx and change nothing.
"""

import socket
import sqlite3

import pytest

from tests.servers.gunicorn import ASGI, live_database, live_server, points_game_doc

HUGE = 300_000_000


# The sync worker, and the ASGI worker `make run` serves (tracker/asgi.py reads
# a page's body before Django: it must refuse a body too big as unread).
@pytest.fixture(scope="module", params=[("tracker.wsgi",), ASGI], ids=["sync", "asgi"])
def server(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad-requests")
    with live_database("sqlite", tmp / "db") as db:  # noqa: SIM117
        with live_server(db, tmp / "log", workers=2, app=request.param) as running:
            running.game = db.import_game(points_game_doc(deals=3))
            yield running


def stored(server):
    """The game's revision and every event row, read from its SQLite file."""
    with sqlite3.connect(server.db.path) as db:
        game = server.game["id"]
        revision = db.execute("SELECT revision FROM tracker_game WHERE id = ?", [game])
        events = db.execute(
            "SELECT position, serial, type, data FROM tracker_event WHERE game_id = ? "
            "ORDER BY position",
            [game],
        )
        return revision.fetchall(), events.fetchall()


def exchange(server, head, body=b"", timeout=20):
    """Send a request's head (and the first bytes of its body); the status the server answers."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(head + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else None


@pytest.mark.parametrize("path", ["/import/", "/language/", "/tables/import/"])
def test_a_body_announced_too_big_is_refused_before_it_is_read(server, path):
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        "Content-Type: multipart/form-data; boundary=zz\r\n"
        f"Content-Length: {HUGE}\r\nConnection: close\r\n\r\n"
    ).encode()
    part = b'--zz\r\nContent-Disposition: form-data; name="file"; filename="big.json"\r\n\r\n'
    # 64 KB of the 300 MB, then the answer is awaited: it comes with the rest unsent
    # (a server that read on would wait for the rest, and the socket time out).
    assert exchange(server, head, part + b"x" * 65_536, timeout=10) == 413


RAW = [
    b"GET / HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"GET / HTTP/1.1\r\n\r\n",
    b"GET http://elsewhere.example/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /language/ HTTP/1.1\r\nHost: bad host\r\nContent-Type: multipart/form-data\r\n"
    b"Content-Length: 5\r\n\r\n--x\r\n",
    b"POST {deal} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data\r\n"
    b"Content-Length: 5\r\n\r\n--x\r\n",
    b"POST {deal} HTTP/1.1\r\nHost: 127.0.0.1\r\nHX-Request: true\r\n"
    b"HX-Current-URL: http://[history=all\r\nContent-Length: 9\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\n\r\nversion=3",
    b"GET {game} HTTP/1.1\r\nHost: 127.0.0.1\r\nHX-Request: true\r\n"
    b"HX-Current-URL: \x80\x81\r\n\r\n",
    b"POST {deal} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
    b"POST {deal} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
    b"Content-Type: multipart/form-data; boundary=q\r\n\r\n5\r\n--q\r\n\r\n0\r\n\r\n",
]


@pytest.mark.parametrize("raw", RAW)
def test_malformed_raw_requests_get_no_5xx_and_change_nothing(server, raw):
    game = server.game
    before = stored(server)
    raw = raw.replace(b"{deal}", f"/g/{game['edit_token']}/deal/".encode())
    raw = raw.replace(b"{game}", f"/g/{game['edit_token']}/".encode())
    status = exchange(server, raw)
    assert status is not None and status < 500, status
    assert stored(server) == before
    assert "Internal Server Error" not in server.log_text()
