from __future__ import annotations

import http.server
import threading
from typing import Iterator, List

import pytest
from sdk import Client

from svc_sandbox import Session

pytest_plugins = ["pytester"]


@pytest.fixture
def client(svc_sandbox: Session) -> Client:
    """The SDK stand-in, with the session's key: what the code under test would hold."""
    return Client(svc_sandbox.api_key or "", svc_sandbox.base_url)


class ClockGate:
    """Holds the session's next advance inside the server, mid-way, until the test opens the gate.

    A webhook receiver that answers only once the gate is open: the advance that delivers the
    event it subscribed to waits for that answer (the session's webhook_timeout must be longer),
    and the session's clock meanwhile stands at that event. A test uses it to make threads meet
    at one virtual instant, whatever the machine's scheduling.
    """

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.held: List[bytes] = []
        gate = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                gate.held.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                gate.opened.wait(30)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close_at(self, session: Session, client: Client, offset: str) -> None:
        """The first advance that reaches ``offset`` from now stops there until :meth:`open`."""
        url = f"http://127.0.0.1:{self.server.server_address[1]}/gate"
        assert client.send("POST", "/v1/webhooks", {"url": url, "events": ["call.answered"]}).status == 201
        session.set_behavior("+14155550199", ring=offset)
        assert client.send("POST", "/v1/calls", {"to": "+14155550199", "from": "+14155550100"}).status == 201

    def open(self) -> None:
        self.opened.set()

    def stop(self) -> None:
        self.opened.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def clock_gate() -> Iterator[ClockGate]:
    gate = ClockGate()
    yield gate
    gate.stop()
