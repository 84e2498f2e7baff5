"""A phone's stream of pushed updates, read off a plain socket (tests/live/).

`EventStream(port, path)` sends the GET an EventSource sends and reads the
answer's status and headers; `.next_revision(timeout)` waits for the next
plain event (its data, a revision), `.next_event(timeout)` for any (its name
too: a view link's "board" brings the board's HTML), `.raw` is every byte
received (`.body`: the body's), `.ended(timeout)` waits for the server to end
the stream; `save_deal` saves a deal as a phone does; `deals_reach_both`
checks what servers sharing their pushed updates must do. Reading is bounded
in time: nothing here waits longer than it is told.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.servers.gunicorn import deal_fields, deal_form


def save_deal(server, edit_token, k):
    """Deal k saved through the edit link, as a phone without JavaScript posts it;
    returns the game's revision after it."""
    phone = server.browser()
    token, version = deal_form(phone.get(f"/g/{edit_token}/").body)
    saved = phone.post(f"/g/{edit_token}/deal/", deal_fields(k, version), token)
    assert saved.status == 302, saved.body[:500]
    return version + 1


def deals_reach_both(one, two, game, each=1):
    """A deal saved on either server reaches the streams held on both (`each` on
    every edit and view link of the game), and nothing went through a server's local
    folder (no worker bound a socket in its LIVE_DIR): only the shared fan-out."""
    streams = [
        EventStream(server.port, f"/{link}/{game[token]}/stream")
        for server in (one, two)
        for link, token in (("g", "edit_token"), ("w", "view_token"))
        for _ in range(each)
    ]
    try:
        assert all(stream.next_revision() == 1 for stream in streams)
        assert save_deal(two, game["edit_token"], 10_001) == 2
        assert all(stream.next_revision(timeout=10) == 2 for stream in streams)
        assert save_deal(one, game["edit_token"], 10_002) == 3
        assert all(stream.next_revision(timeout=10) == 3 for stream in streams)
    finally:
        for stream in streams:
            stream.close()
    for server in (one, two):
        assert "Traceback" not in server.log_text()
        assert not list(Path(server.env["LIVE_DIR"]).glob("*.sock"))


class StreamTimeout(AssertionError):
    pass


class EventStream:
    def __init__(self, port, path, timeout=20.0, headers=()):
        self.path = path
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        more = "".join(f"{name}: {value}\r\n" for name, value in headers)
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{more}"
            "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".encode()
        )
        self.raw = b""
        self._buffer = b""
        self._closed = False
        head = self._read_until(b"\r\n\r\n", timeout)
        lines = head.decode("latin1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                self.headers[name.strip().lower()] = value.strip()
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self._body = b""  # the body decoded from its chunks, not yet parsed into events
        self.body = b""  # every byte of the body received so far, chunks decoded

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- reading

    def _recv(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise StreamTimeout(f"{self.path}: nothing more within the time given")
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            raise StreamTimeout(f"{self.path}: nothing more within the time given") from None
        except ConnectionError:
            data = b""
        if not data:
            self._closed = True
        self.raw += data
        return data

    def _read_until(self, marker, timeout):
        deadline = time.monotonic() + timeout
        while marker not in self._buffer:
            if self._closed or not self._recv_into_buffer(deadline):
                raise AssertionError(f"{self.path}: the connection closed: {self._buffer!r}")
        head, self._buffer = self._buffer.split(marker, 1)
        return head

    def _recv_into_buffer(self, deadline):
        data = self._recv(deadline)
        self._buffer += data
        return bool(data)

    def _decode_chunks(self):
        """Move whole chunks from the buffer to the body; True at the last chunk."""
        if not self.chunked:
            self._body += self._buffer
            self.body += self._buffer
            self._buffer = b""
            return False
        while b"\r\n" in self._buffer:
            size_line, rest = self._buffer.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                return True
            if len(rest) < size + 2:
                return False
            self._body += rest[:size]
            self.body += rest[:size]
            self._buffer = rest[size + 2 :]
        return False

    def events(self, timeout):
        """Yield each event's (name, data), "message" when unnamed, and (None, None)
        for a comment, until the stream ends."""
        deadline = time.monotonic() + timeout
        while True:
            last = self._decode_chunks()
            while b"\n\n" in self._body:
                block, self._body = self._body.split(b"\n\n", 1)
                lines = block.split(b"\n")
                data = [line[5:].strip() for line in lines if line.startswith(b"data:")]
                names = [line[6:].strip() for line in lines if line.startswith(b"event:")]
                if not data:
                    yield None, None
                else:
                    name = names[-1].decode() if names else "message"
                    yield name, b"\n".join(data).decode()
            if last or self._closed:
                return
            self._recv_into_buffer(deadline)

    def next_event(self, timeout=20.0):
        """(name, revision) of the next event, comments skipped: ("message", 3), or
        ("poll", 3) while the server's fan-out is down and its page must poll; a view
        link's ("board", its HTML)."""
        for name, data in self.events(timeout):
            if data is not None:
                return name, (data if name == "board" else int(data))
        raise AssertionError(f"{self.path}: the stream ended before an event came")

    def next_revision(self, timeout=20.0):
        """The revision of the next plain event (comments and "poll" events skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            name, revision = self.next_event(max(0.0, deadline - time.monotonic()))
            if name == "message":
                return revision

    def ended(self, timeout=20.0):
        """Wait until the server ends the stream (its last chunk, or the connection closed)."""
        for _ in self.events(timeout):
            pass
        return True
