"""Server: finding the server (exec, SVC_SANDBOX_BIN, PATH, npx) and failing fast, with the fix, when it cannot."""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import signal
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest

from svc_sandbox import SandboxConnectionError, SandboxError, SandboxTimeoutError, Server, ServerStartError
from svc_sandbox._process import server_command

QUICK = 5.0
"""Real seconds within which every failure below must be reported: none of them may wait long."""


@pytest.fixture(scope="session")
def real_cli() -> str:
    """A shell command line that runs the CLI whatever PATH a test sets (node by its absolute path)."""
    command, _ = server_command(os.environ)
    if command[-1].endswith(".js"):  # a built checkout's cli.js: `#!/usr/bin/env node` needs node on PATH
        command = [shutil.which("node") or "node", command[-1]]
    return " ".join(f"'{part}'" for part in command)


@pytest.fixture
def clean_env(real_cli: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No exec server, no SVC_SANDBOX_BIN, and a PATH of one empty folder (returned) to add tools to."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("SVC_SANDBOX_URL", "SVC_SANDBOX_BIN", "SVC_SANDBOX_TIMEOUT", "SVC_SANDBOX_START_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.chdir(tmp_path)  # no node_modules/.bin/svc-sandbox above it
    return folder


def script(folder: Path, name: str, body: str) -> Path:
    file = folder / name
    file.write_text("#!/bin/sh\n" + body + "\n")
    file.chmod(0o755)
    return file


def timed(action):  # type: ignore[no-untyped-def]
    began = time.monotonic()
    with pytest.raises(SandboxError) as caught:
        action()
    elapsed = time.monotonic() - began
    assert elapsed < QUICK, f"took {elapsed:.1f} s to fail"
    return caught.value


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(5)
    for connection in held:
        connection.close()
    listener.close()


@pytest.fixture
def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


@pytest.fixture
def half_server() -> Iterator[str]:
    """A fake server that answers health and session creation, then never answers anything else."""
    released = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self, status: int, body: object) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            if self.path == "/__sandbox/health":
                return self.answer(200, {"status": "ok"})
            released.wait(30)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/__sandbox/sessions":
                return self.answer(201, {"id": "ses_hang", "apiKey": "SVC_TEST_ses_hang_x", "now": "2026-01-01T00:00:00.000Z"})
            released.wait(30)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    released.set()
    server.shutdown()
    server.server_close()


# Under svc-sandbox exec


def test_under_exec_it_connects_to_the_server_in_svc_sandbox_url(monkeypatch: pytest.MonkeyPatch) -> None:
    own = Server.start(fresh=True)
    try:
        monkeypatch.setenv("SVC_SANDBOX_URL", own.control_url)  # as exec sets it: http://HOST:PORT/__sandbox

        server = Server.start()

        assert (server.url, server.pid) == (own.url, None)
        assert Server.start() is server
        with server.session(seed=3) as session:
            assert session.base_url == own.url
            assert session.id in [s["id"] for s in own.sessions()]
        server.stop()  # not ours to stop
        assert own.sessions()[0]["id"] == "default"
    finally:
        own.stop()


def test_an_unreachable_svc_sandbox_url_fails_at_once_naming_it(clean_env: Path, monkeypatch: pytest.MonkeyPatch, closed_port: int) -> None:
    monkeypatch.setenv("SVC_SANDBOX_URL", f"http://127.0.0.1:{closed_port}/__sandbox")

    error = timed(Server.start)

    assert isinstance(error, SandboxConnectionError) and isinstance(error, ConnectionError)
    assert error.param == "SVC_SANDBOX_URL"
    assert str(error).startswith(
        f"Server.start failed: connection_failed: SVC_SANDBOX_URL=http://127.0.0.1:{closed_port}/__sandbox is set, but no "
        "svc-sandbox server answers there"
    )
    assert "Unset SVC_SANDBOX_URL" in str(error)


@pytest.mark.parametrize("url", ["127.0.0.1:12111", "https://127.0.0.1:12111", "http://127.0.0.1", "http://127.0.0.1:1/v1"])
def test_a_malformed_svc_sandbox_url_is_refused_naming_it(clean_env: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("SVC_SANDBOX_URL", url)

    error = timed(Server.start)

    assert (error.code, error.param) == ("invalid_url", "SVC_SANDBOX_URL")
    assert f"SVC_SANDBOX_URL={url!r}" in str(error) and "http://HOST:PORT" in str(error)


def test_a_silent_svc_sandbox_url_times_out_after_svc_sandbox_timeout(clean_env: Path, monkeypatch: pytest.MonkeyPatch, silent_port: int) -> None:
    monkeypatch.setenv("SVC_SANDBOX_URL", f"http://127.0.0.1:{silent_port}")
    monkeypatch.setenv("SVC_SANDBOX_TIMEOUT", "0.5")

    error = timed(Server.start)

    assert isinstance(error, SandboxTimeoutError) and isinstance(error, TimeoutError)
    assert "within 0.5 s" in str(error) and "SVC_SANDBOX_TIMEOUT" in str(error) and "SVC_SANDBOX_URL" in str(error)


def test_a_control_call_that_hangs_fails_within_the_timeout_naming_the_session(half_server: str) -> None:
    server = Server.connect(half_server, timeout=0.5)
    session = server.session()

    error = timed(lambda: session.advance("1s"))

    assert isinstance(error, SandboxTimeoutError)
    assert (error.operation, error.session_id) == ("Session.advance", "ses_hang")
    assert str(error).startswith("Session.advance (session ses_hang) failed: timeout: no answer from")


def test_a_bad_svc_sandbox_timeout_is_refused_naming_it(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_SANDBOX_TIMEOUT", "soon")

    error = timed(Server.start)

    assert (error.code, error.param) == ("invalid_environment", "SVC_SANDBOX_TIMEOUT")
    assert "SVC_SANDBOX_TIMEOUT='soon' is not a number of seconds" in str(error)


# Finding the executable


def test_a_missing_svc_sandbox_bin_fails_at_once_naming_it(clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(tmp_path / "nowhere" / "svc-sandbox"))

    error = timed(lambda: Server.start(fresh=True))

    assert isinstance(error, ServerStartError)
    assert (error.code, error.param) == ("bin_not_found", "SVC_SANDBOX_BIN")
    assert str(error).startswith("Server.start failed: bin_not_found: SVC_SANDBOX_BIN=")
    assert f"SVC_SANDBOX_BIN={tmp_path / 'nowhere' / 'svc-sandbox'}: no such file" in str(error)
    assert "npm run build:binary" in str(error)


def test_a_svc_sandbox_bin_that_is_not_executable_says_chmod(clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = tmp_path / "svc-sandbox"
    plain.write_text("not a program")
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(plain))

    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "bin_not_executable"
    assert f"chmod +x {plain}" in str(error)


def test_a_svc_sandbox_bin_that_is_a_folder_is_refused(clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(tmp_path))

    assert "is not a file" in str(timed(lambda: Server.start(fresh=True)))


def test_a_script_bin_without_node_on_path_names_node(clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cli = tmp_path / "cli.js"
    cli.write_text("console.log('never run')")
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(cli))

    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "bin_not_executable"
    assert "node is not on PATH" in str(error) and "dist/bin/svc-sandbox" in str(error)


def test_no_svc_sandbox_and_no_npx_fails_at_once_with_the_fixes_and_no_registry_advice(clean_env: Path) -> None:
    """Regression: the message advised `npm install --save-dev svc-sandbox`, a name the registry does not have."""
    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "server_not_found"
    message = str(error)
    assert "SVC_SANDBOX_BIN is not set, svc-sandbox is not on PATH" in message and "no node_modules/.bin/svc-sandbox" in message
    for fix in ("Set SVC_SANDBOX_BIN", "npm run build:binary", "SVC_SANDBOX_URL", "svc-sandbox exec", "tarball or git"):
        assert fix in message
    assert "npm install" not in message and "npm i " not in message


def test_no_error_string_of_the_helper_gives_registry_advice() -> None:
    source = Path(__file__).resolve().parents[1] / "src" / "svc_sandbox"
    for file in source.glob("*.py"):
        text = file.read_text(encoding="utf-8")
        assert re.findall(r"npm (?:install|i|add) [^\n]*svc-sandbox(?![-\w./])", text) == [], file.name


def test_a_projects_node_modules_bin_comes_before_npx(clean_env: Path, real_cli: str, tmp_path: Path) -> None:
    """npx --no-install still asks the registry: the project's own bin, found walking up, is run directly."""
    asked = tmp_path / "npx-asked"
    script(clean_env, "npx", f"touch {asked}\nexit 1")
    project = tmp_path / "project"
    (project / "node_modules" / ".bin").mkdir(parents=True)
    script(project / "node_modules" / ".bin", "svc-sandbox", f'exec {real_cli} "$@"')
    deep = project / "tests" / "unit"
    deep.mkdir(parents=True)
    os.chdir(deep)  # clean_env's chdir is undone after the test

    server = Server.start(fresh=True)
    try:
        assert server.source == f"node_modules/.bin ({project / 'node_modules' / '.bin' / 'svc-sandbox'})"
        assert server.sessions()[0]["id"] == "default"
        assert not asked.exists()
    finally:
        server.stop()


def test_svc_sandbox_on_path_is_used_when_svc_sandbox_bin_is_not_set(clean_env: Path, real_cli: str) -> None:
    script(clean_env, "svc-sandbox", f'exec {real_cli} "$@"')

    server = Server.start(fresh=True)
    try:
        assert server.source == f"svc-sandbox on PATH ({clean_env / 'svc-sandbox'})"
        assert server.sessions()[0]["id"] == "default"
    finally:
        server.stop()


def test_npx_no_install_is_the_last_resort(clean_env: Path, real_cli: str, tmp_path: Path) -> None:
    seen = tmp_path / "npx-args"
    script(clean_env, "npx", f'echo "$@" > {seen}\nshift 2\nexec {real_cli} "$@"')

    server = Server.start(fresh=True)
    try:
        assert seen.read_text().strip() == "--no-install svc-sandbox serve --port 0 --exit-on-stdin-close"
        assert server.source.startswith("npx --no-install svc-sandbox")
    finally:
        server.stop()


# Starting


def test_a_server_that_prints_nothing_fails_after_the_start_timeout(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mute = script(clean_env, "mute", "echo 'warming up' >&2\nexec /bin/cat")
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(mute))
    monkeypatch.setenv("SVC_SANDBOX_START_TIMEOUT", "0.5")

    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "start_timeout"
    assert "printed no ready line within 0.5 s" in str(error) and "SVC_SANDBOX_START_TIMEOUT" in str(error)
    assert "warming up" in str(error)


def test_a_server_that_exits_at_once_says_its_code_and_last_words(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(script(clean_env, "broken", "echo 'svc-sandbox: port 0 is busy' >&2\nexit 3")))

    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "server_exited"
    assert "exited with code 3 before it was ready" in str(error) and "svc-sandbox: port 0 is busy" in str(error)


def test_a_program_that_is_not_svc_sandbox_is_named(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(script(clean_env, "other", "echo 'hello world'\nexec /bin/cat")))

    error = timed(lambda: Server.start(fresh=True))

    assert "printed 'hello world' where 'svc-sandbox listening on http://HOST:PORT' was expected" in str(error)


def test_one_server_per_process_until_it_is_stopped() -> None:
    first = Server.start()
    assert Server.start() is first and first.pid is not None

    own = Server.start(fresh=True, args=["--seed", "7"])
    try:
        assert own is not first and own.pid != first.pid
        assert [s["seed"] for s in own.sessions() if s["id"] == "default"] == [7]
    finally:
        own.stop()
    assert "exited with code 0" in (own.exited() or "")
    assert Server.start() is first


def test_args_need_a_server_of_your_own() -> None:
    with pytest.raises(ValueError, match="fresh=True"):
        Server.start(args=["--seed", "1"])


def test_a_server_that_dies_mid_run_fails_the_next_call_at_once_saying_so() -> None:
    server = Server.start(fresh=True)
    session = server.session()
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)
    assert server._process is not None
    server._process.process.wait(QUICK)

    error = timed(lambda: session.advance("1s"))

    assert isinstance(error, SandboxConnectionError)
    assert error.session_id == session.id
    assert f"the svc-sandbox server (pid {server.pid}," in str(error) and "was killed by signal 9" in str(error)
    assert "Start a new one with Server.start()" in str(error)
    session.close()  # nothing left to delete: no second error
    server.stop()


def test_stop_ends_the_server_by_closing_its_stdin() -> None:
    server = Server.start(fresh=True)
    assert server._process is not None

    server.stop()
    server.stop()

    assert server._process.process.returncode == 0  # a clean exit, as on SIGTERM, not a kill
    with pytest.raises(SandboxConnectionError):
        server.sessions()


def test_a_svc_sandbox_bin_that_is_executable_runs_directly(clean_env: Path, real_cli: str, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = script(clean_env, "svc-sandbox-binary", f'exec {real_cli} "$@"')
    wrapper.chmod(stat.S_IRWXU)
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(wrapper))

    server = Server.start(fresh=True)
    try:
        assert server.source == f"SVC_SANDBOX_BIN={wrapper}"
    finally:
        server.stop()


def test_a_script_bin_not_marked_executable_runs_with_node_from_path(clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    node = script(clean_env, "node", "exit 1")
    cli = tmp_path / "cli.js"
    cli.write_text("")
    monkeypatch.setenv("SVC_SANDBOX_BIN", str(cli))

    assert server_command(os.environ) == ([str(node), str(cli)], f"SVC_SANDBOX_BIN={cli}")


def test_npx_that_finds_nothing_is_not_only_its_404_but_the_fixes(clean_env: Path) -> None:
    """Regression: when npx answered 404, the error quoted it and gave no fix that works (or a registry install)."""
    script(clean_env, "npx", "echo 'npm error 404 Not Found - GET https://registry.example/svc-sandbox' >&2\nexit 1")

    error = timed(lambda: Server.start(fresh=True))

    assert error.code == "server_exited"
    message = str(error)
    assert message.index("SVC_SANDBOX_BIN") < message.index("npm error 404")  # the fix first, then what npx said
    for fix in ("npm run build:binary", "SVC_SANDBOX_URL", "svc-sandbox exec"):
        assert fix in message
    assert "npm install" not in message
