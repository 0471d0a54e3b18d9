"""Against a hostile SVC_SANDBOX_URL the helper trusts no more than it must.

A loopback server that redirects, drips, pages for ever or answers without end: no redirect is
followed (nor a body resent), SVC_SANDBOX_TIMEOUT bounds the whole call, a listing walks at most
MAX_PAGES pages and an answer is read up to MAX_ANSWER_BYTES; each refusal names the server.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from typing import Callable, Iterator, List, Tuple

import pytest

from svc_sandbox import SandboxError, SandboxTimeoutError, Server
from svc_sandbox import _http, _wire

HEALTH = b'{"status":"ok"}'
BOUND = 10.0
"""Real seconds a refusal may take: at least 20 times what each one takes (a timeout of 0.3 s, or less)."""

Reply = Callable[[socket.socket, str, "Hostile"], None]


class Hostile:
    """A loopback HTTP server whose answers a test writes byte by byte; it records each request line."""

    def __init__(self, reply: Reply) -> None:
        self.requests: List[str] = []
        self.stop = threading.Event()
        hostile = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = self.request.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                line = head.split(b"\r\n", 1)[0].decode()
                hostile.requests.append(line)
                try:
                    if line.startswith("GET /__sandbox/health "):
                        answer(self.request, 200, HEALTH)
                    else:
                        reply(self.request, line, hostile)
                except OSError:
                    pass  # the helper hung up: what a refusal does

        socketserver.ThreadingTCPServer.daemon_threads = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(BOUND)


def answer(sock: socket.socket, status: int, body: bytes, headers: Tuple[str, ...] = ()) -> None:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", "Content-Type: application/json", "Connection: close", *headers]
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)


@pytest.fixture
def hostile() -> Iterator[Callable[[Reply], Hostile]]:
    made: List[Hostile] = []

    def make(reply: Reply) -> Hostile:
        made.append(Hostile(reply))
        return made[-1]

    yield make
    for server in made:
        server.close()


def refused(action: Callable[[], object]) -> Tuple[SandboxError, float]:
    began = time.monotonic()
    with pytest.raises(SandboxError) as caught:
        action()
    elapsed = time.monotonic() - began
    assert elapsed < BOUND, f"took {elapsed:.1f} s to refuse"
    return caught.value, elapsed


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_never_followed_nor_the_body_resent(hostile: Callable[[Reply], Hostile], status: int) -> None:
    elsewhere = hostile(lambda sock, line, _: answer(sock, 201, b'{"id":"ses_x","apiKey":"k","now":"2026-01-01T00:00:00.000Z"}'))
    target = f"{elsewhere.url}/__sandbox/sessions"
    server = hostile(lambda sock, line, _: answer(sock, status, b"", (f"Location: {target}",)))

    error, _ = refused(lambda: Server.connect(server.url, timeout=5).session(seed=1))

    assert (error.status, error.code, error.operation) == (status, "redirect_refused", "Server.session")
    assert server.url in str(error) and target in str(error) and "follows no redirect" in str(error)
    assert server.requests == ["GET /__sandbox/health HTTP/1.1", "POST /__sandbox/sessions HTTP/1.1"]
    assert elsewhere.requests == []


def test_an_answer_dripped_a_byte_at_a_time_ends_at_the_timeout_of_the_whole_call(
    hostile: Callable[[Reply], Hostile], monkeypatch: pytest.MonkeyPatch
) -> None:
    def drip(sock: socket.socket, line: str, server: Hostile) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        while not server.stop.wait(0.02):  # each byte well within any per-read timeout
            sock.sendall(b" ")

    server = hostile(drip)
    monkeypatch.setenv("SVC_SANDBOX_TIMEOUT", "0.3")

    error, elapsed = refused(lambda: Server.connect(server.url).coverage())

    assert isinstance(error, SandboxTimeoutError)
    assert elapsed >= 0.3
    assert f"no answer from {server.url} within 0.3 s" in str(error) and "whole call" in str(error)


def test_headers_dripped_a_byte_at_a_time_end_at_the_timeout_too(hostile: Callable[[Reply], Hostile]) -> None:
    def drip(sock: socket.socket, line: str, server: Hostile) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 10000:
            if server.stop.wait(0.02):
                return
            sock.sendall(bytes([byte]))

    server = hostile(drip)

    error, elapsed = refused(lambda: Server.connect(server.url, timeout=0.3).coverage())

    assert isinstance(error, SandboxTimeoutError) and elapsed >= 0.3
    assert server.url in str(error)


def test_a_listing_that_always_has_more_stops_at_max_pages_naming_the_server(
    hostile: Callable[[Reply], Hostile], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _wire.MAX_PAGES == 10_000
    monkeypatch.setattr(_wire, "MAX_PAGES", 25)  # the same loop, 25 pages instead of 10,000
    page = json.dumps({"data": [{"id": "ses_x"}], "has_more": True, "next_cursor": "again"}).encode()
    server = hostile(lambda sock, line, _: answer(sock, 200, page))

    error, _ = refused(lambda: Server.connect(server.url, timeout=5).sessions())

    assert (error.code, error.operation) == ("too_many_pages", "Server.sessions")
    assert f"{server.url} still had more after 25 pages of Server.sessions" in str(error)
    assert len(server.requests) == 1 + 25


def test_a_page_that_is_not_a_page_is_refused_naming_the_server(hostile: Callable[[Reply], Hostile]) -> None:
    server = hostile(lambda sock, line, _: answer(sock, 200, b'{"data": 7, "has_more": true}'))

    error, _ = refused(lambda: Server.connect(server.url, timeout=5).sessions())

    assert error.code == "invalid_response" and server.url in str(error) and "Server.sessions" in str(error)


def test_an_answer_announced_larger_than_64_mib_is_refused_unread(hostile: Callable[[Reply], Hostile]) -> None:
    assert _http.MAX_ANSWER_BYTES == 64 * 1024 * 1024

    def huge(sock: socket.socket, line: str, server: Hostile) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n[" % (64 * 1024 * 1024 + 1))
        server.stop.wait(BOUND)

    server = hostile(huge)

    error, _ = refused(lambda: Server.connect(server.url, timeout=5).coverage())

    assert error.code == "answer_too_large"
    assert f"{server.url} answered GET /__sandbox/coverage with 67108865 bytes" in str(error) and "64 MiB" in str(error)


def test_an_endless_answer_is_read_to_64_mib_and_one_byte_then_refused(hostile: Callable[[Reply], Hostile]) -> None:
    sent = [0]

    def endless(sock: socket.socket, line: str, server: Hostile) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
        block = b" " * 65536
        while not server.stop.is_set() and sent[0] < 1024 * 1024 * 1024:
            sock.sendall(block)
            sent[0] += len(block)

    server = hostile(endless)

    error, _ = refused(lambda: Server.connect(server.url, timeout=BOUND).coverage())

    assert error.code == "answer_too_large"
    assert f"{server.url} answered GET /__sandbox/coverage with more than the helper reads (67108864 bytes" in str(error)
    assert sent[0] < 1024 * 1024 * 1024  # it hung up, rather than reading on


def test_an_endless_stream_of_comments_is_read_to_64_mib_then_refused(hostile: Callable[[Reply], Hostile]) -> None:
    sent = [0]

    def endless(sock: socket.socket, line: str, server: Hostile) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        block = b": keep-alive\n" * 4096
        while not server.stop.is_set() and sent[0] < 1024 * 1024 * 1024:
            sock.sendall(block)
            sent[0] += len(block)

    server = hostile(endless)

    error, _ = refused(lambda: Server.connect(server.url, timeout=BOUND).api.stream_session("ses_x", max_events=1))

    assert error.code == "answer_too_large" and server.url in str(error)
    assert sent[0] < 1024 * 1024 * 1024


def test_a_stream_dripped_without_end_returns_its_events_at_the_deadline(hostile: Callable[[Reply], Hostile]) -> None:
    def drip(sock: socket.socket, line: str, server: Hostile) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: change\ndata: {\"now\": 1}\n\n")
        while not server.stop.wait(0.02):  # each byte well within any per-read timeout
            sock.sendall(b":")

    server = hostile(drip)
    began = time.monotonic()

    frames = Server.connect(server.url, timeout=0.3).api.stream_session("ses_x", max_events=5)

    assert 0.3 <= time.monotonic() - began < BOUND
    assert frames == [{"event": "change", "data": {"now": 1}, "id": None}]
