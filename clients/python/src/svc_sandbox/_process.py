"""Finding and running ``svc-sandbox serve``: the command, the ready line, the pipes, the stop."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import threading
from collections import deque
from typing import IO, Deque, List, Mapping, Optional, Sequence, Tuple

from .errors import ServerStartError

DEFAULT_START_TIMEOUT = 30.0
"""Seconds ``serve`` may take to print its ready line: Node starts in about a second, npx may
take several the first time on a loaded machine."""

READY = re.compile(r"^svc-sandbox listening on (http://\S+)\s*$")
TAIL_LINES = 40
"""Lines of the server's stderr (and stdout) kept for error messages; older ones are dropped."""
STOP_GRACE = 5.0
"""Seconds a server may take to exit once its stdin is closed, before SIGTERM and then SIGKILL."""

FIX = (
    "Set SVC_SANDBOX_BIN to the svc-sandbox executable (in a checkout of svc-sandbox, `npm run build:binary` writes "
    "dist/bin/svc-sandbox, one file that needs no Node; a built checkout's dist/server/cli.js works too), install the "
    "package into your project from its tarball or git (node_modules/.bin/svc-sandbox is then found), or run the tests "
    "under `svc-sandbox exec -- python -m pytest`, which sets SVC_SANDBOX_URL."
)
"""What to do when no server is found: never a registry install (the name is not published there)."""


def local_bin(start: str) -> Optional[str]:
    """``node_modules/.bin/svc-sandbox`` in ``start`` or the nearest folder above it that has one, as npm's own bins are found."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, "node_modules", ".bin", "svc-sandbox")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def server_command(environ: Mapping[str, str], cwd: Optional[str] = None) -> Tuple[List[str], str]:
    """The command that runs the CLI, and how it was found (for messages).

    ``SVC_SANDBOX_BIN``, else ``svc-sandbox`` on PATH, else ``node_modules/.bin/svc-sandbox`` from
    the working directory up (npx would find it too, but ``npx --no-install`` still asks the
    registry first), else ``npx --no-install svc-sandbox``.
    """
    path = environ.get("PATH", os.defpath)
    named = environ.get("SVC_SANDBOX_BIN", "")
    if named:
        return bin_command(named, path), f"SVC_SANDBOX_BIN={named}"
    found = shutil.which("svc-sandbox", path=path)
    if found:
        return [found], f"svc-sandbox on PATH ({found})"
    local = local_bin(cwd or os.getcwd())
    if local:
        return [local], f"node_modules/.bin ({local})"
    npx = shutil.which("npx", path=path)
    if npx:
        return [npx, "--no-install", "svc-sandbox"], f"npx --no-install svc-sandbox ({npx})"
    raise ServerStartError(
        f"svc-sandbox not found: SVC_SANDBOX_BIN is not set, svc-sandbox is not on PATH ({path}), no node_modules/.bin/"
        f"svc-sandbox is in {cwd or os.getcwd()} or above, and there is no npx. {FIX}",
        code="server_not_found",
    )


def show_command(environ: Mapping[str, str], cwd: Optional[str] = None) -> List[str]:
    """The command that opens a snapshot, as the user's shell runs it: ``svc-sandbox show FILE`` must follow it.

    The executable's full path when the helper found one (``SVC_SANDBOX_BIN``, PATH), else
    ``npx svc-sandbox``, which finds the project's node_modules/.bin (a shell does not); the
    node_modules/.bin file's own path when there is no npx on PATH to find it.
    """
    try:
        command, source = server_command(environ, cwd)
    except ServerStartError:
        return ["npx", "svc-sandbox"]
    if source.startswith("npx") or (source.startswith("node_modules/.bin") and shutil.which("npx", path=environ.get("PATH"))):
        return ["npx", "svc-sandbox"]
    return command


def bin_command(named: str, path: str) -> List[str]:
    """The command for ``SVC_SANDBOX_BIN``: the file itself, or ``node FILE`` for a script not marked executable."""
    file = os.path.abspath(os.path.expanduser(named))
    where = f"SVC_SANDBOX_BIN={named}"
    if not os.path.exists(file):
        raise ServerStartError(f"{where}: no such file. {FIX} Or unset SVC_SANDBOX_BIN.", code="bin_not_found", param="SVC_SANDBOX_BIN")
    if not os.path.isfile(file):
        raise ServerStartError(f"{where} is not a file. {FIX}", code="bin_not_executable", param="SVC_SANDBOX_BIN")
    if os.access(file, os.X_OK):
        return [file]
    if file.endswith((".js", ".mjs", ".cjs")):
        node = shutil.which("node", path=path)
        if node:
            return [node, file]
        raise ServerStartError(
            f"{where} is a JavaScript file that is not executable, and node is not on PATH to run it. Put node on PATH, "
            f"chmod +x it, or point SVC_SANDBOX_BIN at the single executable (dist/bin/svc-sandbox), which needs no Node.",
            code="bin_not_executable",
            param="SVC_SANDBOX_BIN",
        )
    raise ServerStartError(
        f"{where} is not executable: chmod +x {file}, or point SVC_SANDBOX_BIN at the svc-sandbox executable.",
        code="bin_not_executable",
        param="SVC_SANDBOX_BIN",
    )


class ServerProcess:
    """A ``svc-sandbox serve --port 0 --exit-on-stdin-close`` child of this process.

    Its stdin is a pipe only this process writes to: when the process ends, however it ends,
    the kernel closes it and the server stops by itself. Its stdout and stderr are drained by
    daemon threads into bounded buffers, so the server never blocks on a full pipe and the
    last lines are at hand for error messages.
    """

    def __init__(self, command: Sequence[str], source: str, args: Sequence[str], environ: Mapping[str, str], start_timeout: float) -> None:
        self.source = source
        self.command = [*command, "serve", "--port", "0", "--exit-on-stdin-close", *args]
        self.stderr: Deque[str] = deque(maxlen=TAIL_LINES)
        self.stdout: Deque[str] = deque(maxlen=TAIL_LINES)
        self.owner_pid = os.getpid()
        self._lock = threading.Lock()
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(environ),
                # A session of its own: a Ctrl-C at the terminal reaches the test runner, which then
                # closes its sessions and stops the server, instead of killing the server under it.
                start_new_session=os.name == "posix",
            )
        except OSError as error:
            raise ServerStartError(f"could not run {self.describe()}: {error}. {FIX}", code="server_not_started") from None
        ready: "queue.Queue[Optional[str]]" = queue.Queue()
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._drain, args=(self.process.stdout, self.stdout, ready), daemon=True, name="svc-sandbox stdout").start()
        self._stderr_reader = threading.Thread(
            target=self._drain, args=(self.process.stderr, self.stderr, None), daemon=True, name="svc-sandbox stderr"
        )
        self._stderr_reader.start()
        self.url = self._await_ready(ready, start_timeout)

    @property
    def pid(self) -> int:
        return self.process.pid

    def describe(self) -> str:
        return f"`{' '.join(self.command)}` (from {self.source})"

    def _drain(self, pipe: IO[bytes], tail: Deque[str], ready: "Optional[queue.Queue[Optional[str]]]") -> None:
        try:
            for raw in pipe:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if ready is not None:
                    ready.put(line)
                    ready = None
                else:
                    tail.append(line)
        except (OSError, ValueError):
            pass
        finally:
            if ready is not None:
                ready.put(None)

    def _await_ready(self, ready: "queue.Queue[Optional[str]]", start_timeout: float) -> str:
        try:
            line = ready.get(timeout=start_timeout)
        except queue.Empty:
            self.kill()
            raise ServerStartError(
                f"{self.describe()} printed no ready line within {start_timeout:g} s. Raise SVC_SANDBOX_START_TIMEOUT (seconds) "
                f"on a slow machine; npx is slow the first time.{self.last_words()}",
                code="start_timeout",
            ) from None
        match = READY.match(line or "")
        if match:
            return match.group(1)
        if line is None:
            if not self._exits_within(STOP_GRACE):
                self.kill()
            raise ServerStartError(
                f"{self.describe()} exited with code {self.process.returncode} before it was ready. {FIX}{self.last_words()}",
                code="server_exited",
            )
        self.kill()
        raise ServerStartError(
            f"{self.describe()} printed {line!r} where 'svc-sandbox listening on http://HOST:PORT' was expected: is it the "
            f"svc-sandbox CLI?{self.last_words()}",
            code="server_not_started",
        )

    def last_words(self) -> str:
        """The server's last stderr lines, as a sentence to append to a message (empty when it said nothing)."""
        if self.process.poll() is not None:
            self._stderr_reader.join(timeout=1.0)  # what it wrote before it exited, read to the end
        lines = [line for line in list(self.stderr) if line.strip()]
        return (" Its stderr ended with:\n  " + "\n  ".join(lines[-12:])) if lines else ""

    def exited(self) -> Optional[str]:
        """A sentence saying the server has exited, with its code and last stderr lines; None while it runs."""
        code = self.process.poll()
        if code is None:
            return None
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        return f"the svc-sandbox server (pid {self.pid}, {self.describe()}) {how}. Start a new one with Server.start().{self.last_words()}"

    def stop(self) -> None:
        """Closes its stdin (it exits as on SIGTERM); SIGTERM, then SIGKILL, if it lingers. Never waits unbounded."""
        with self._lock:
            if os.getpid() != self.owner_pid:
                return
            self._close_stdin()
            if not self._exits_within(STOP_GRACE):
                self._signal(signal.SIGTERM)
                if not self._exits_within(STOP_GRACE):
                    self.kill()

    def kill(self) -> None:
        self._signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
        self._exits_within(STOP_GRACE)
        self._close_stdin()

    def _exits_within(self, seconds: float) -> bool:
        try:
            self.process.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def _close_stdin(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass

    def _signal(self, sig: int) -> None:
        if self.process.poll() is not None:
            return
        try:
            if os.name == "posix":
                os.killpg(self.process.pid, sig)  # its group: npx's node child too
            else:
                self.process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass

    def forget_after_fork(self) -> None:
        """In a forked child: drop this copy of the stdin pipe, so the server stops with its real owner."""
        self._close_stdin()
