"""A webhook receiver for tests: an http.server on 127.0.0.1, port 0, in a background thread.

The sandbox server POSTs signed events to it over real HTTP. It records every request
(headers and the exact raw body, which is what the signature covers) and answers with
`self.status`, which a test can change at any time (500 to make deliveries fail).
"""

import http.server
import threading


class WebhookReceiver:
    def __init__(self, status=200):
        self.status = status
        self.requests = []  # [{"path", "headers", "body"}], in arrival order
        self._arrived = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver._arrived:
                    receiver.requests.append({"path": self.path, "headers": self.headers, "body": raw})
                    receiver._arrived.notify_all()
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):  # keep the test output clean
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll interval makes stop() quick (shutdown() waits for the next poll).
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self):
        host, port = self._server.server_address
        return f"http://{host}:{port}/hooks"

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, count, timeout=5.0):
        """Blocks until `count` requests have arrived (or fails after `timeout` real seconds)."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"expected {count} webhook requests, got {len(self.requests)}")
            return list(self.requests)
