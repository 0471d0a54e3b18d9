"""No orphans: however a test run ends, the server it started is gone within a bounded time.

Each case runs pytest for real, in a child process, on a generated test file that records the
server's pid; the run ends as the case says; then the pid is polled until it is gone. Whatever
happens to a case, every process it started is ended and reaped before it returns (``runs``).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, List, Sequence, Tuple

import pytest

GONE_WITHIN = 10.0
"""Real seconds a server may take to exit after its test run ended (it takes milliseconds)."""
RUN_WITHIN = 60.0

TEST_FILE = """
import os, pathlib, signal, threading

# SIGINT raises KeyboardInterrupt, as at a terminal, even when CI was started with SIGINT ignored
# (a background job of a script): Python then leaves it ignored, and the Ctrl-C cases would hang.
signal.signal(signal.SIGINT, signal.default_int_handler)

def test_run_ends(svc_server, svc_sandbox):
    pathlib.Path("server.pid.tmp").write_text(str(svc_server.pid))
    os.replace("server.pid.tmp", "server.pid")
    print("SERVER", svc_server.pid, flush=True)
    how = os.environ["END"]
    if how == "fail":
        assert False, "a failing test"
    if how == "wait":
        threading.Event().wait(60)
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "exit":
        os._exit(3)
"""


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie waiting for a parent that will not reap it counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def assert_gone(pid: int) -> None:
    deadline = time.monotonic() + GONE_WITHIN
    while not gone(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"the server (pid {pid}) outlived its test run by {GONE_WITHIN:g} s")
        time.sleep(0.02)


class Runs:
    """The processes a test starts, each the leader of a process group of its own (for the Ctrl-C
    case, and so that ending it ends what it started in its group, such as an xdist worker)."""

    def __init__(self) -> None:
        self.started: List[subprocess.Popen[bytes]] = []

    def start(self, command: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(command, start_new_session=True, **options)
        self.started.append(process)
        return process

    def end_all(self) -> None:
        """Kills what is left of each one's group and reaps it; fails naming any that outlives SIGKILL by GONE_WITHIN."""
        stuck: List[str] = []
        for process in self.started:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # ended already, and nothing of its group is left
            try:
                process.wait(GONE_WITHIN)
            except subprocess.TimeoutExpired:
                stuck.append(f"pid {process.pid}: {process.args!r}")
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
        assert not stuck, f"still running {GONE_WITHIN:g} s after SIGKILL: {', '.join(stuck)}"


@pytest.fixture
def runs() -> Iterator[Runs]:
    """Starts a test's processes; when the test ends (passed, failed or timed out), none is left."""
    started = Runs()
    try:
        yield started
    finally:
        started.end_all()


def run_pytest(runs: Runs, folder: Path, end: str, *args: str) -> subprocess.Popen[bytes]:
    (folder / "test_end.py").write_text(TEST_FILE)
    env = {**os.environ, "END": end}
    env.pop("SVC_SANDBOX_URL", None)  # a server of its own, even when this suite runs under exec
    return runs.start(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-s", *args, "test_end.py"],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        bufsize=0,  # unbuffered: what select() says is ready is what readline() reads
    )


def await_line(process: subprocess.Popen[bytes], marker: bytes) -> bytes:
    """The rest of the first line of the run's output holding ``marker``, read within a bounded time.

    Failing, it leaves the run to the test's ``runs``, which ends it.
    """
    assert process.stdout is not None
    seen: List[bytes] = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + RUN_WITHIN
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = process.stdout.readline()
            if not line:
                break
            seen.append(line)
            if marker in line:
                return line.split(marker, 1)[1]
    raise AssertionError(f"no {marker!r} line from the test run: {b''.join(seen).decode(errors='replace')}")


def finish(process: subprocess.Popen[bytes]) -> Tuple[int, str]:
    """The run's exit code and output, once it has ended; past RUN_WITHIN, TimeoutExpired (``runs`` ends it)."""
    output, _ = process.communicate(timeout=RUN_WITHIN)
    return process.returncode, output.decode(errors="replace")


def recorded_pid(folder: Path) -> int:
    return int((folder / "server.pid").read_text())


@pytest.mark.parametrize(
    ("end", "code"),
    [("pass", 0), ("fail", 1), ("exit", 3)],
    ids=["a passing run", "a failing run", "os._exit in a test"],
)
def test_a_run_that_ends_leaves_no_server(runs: Runs, tmp_path: Path, end: str, code: int) -> None:
    returncode, output = finish(run_pytest(runs, tmp_path, end))

    assert returncode == code, output
    assert_gone(recorded_pid(tmp_path))


def test_a_sigkilled_xdist_worker_leaves_no_server(runs: Runs, tmp_path: Path) -> None:
    returncode, output = finish(run_pytest(runs, tmp_path, "kill", "-p", "xdist", "-n", "1", "--max-worker-restart", "0"))

    assert returncode != 0 and "crashed" in output, output
    assert_gone(recorded_pid(tmp_path))


@pytest.mark.parametrize(
    ("sig", "group"),
    [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False), (signal.SIGKILL, False)],
    ids=["SIGINT to pytest", "Ctrl-C (SIGINT to its process group)", "SIGTERM to pytest", "SIGKILL to pytest"],
)
def test_a_run_stopped_by_a_signal_leaves_no_server(runs: Runs, tmp_path: Path, sig: int, group: bool) -> None:
    process = run_pytest(runs, tmp_path, "wait")
    pid = int(await_line(process, b"SERVER "))

    if group:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    returncode, output = finish(process)

    assert returncode != 0, output
    assert_gone(pid)


def test_a_forked_child_does_not_keep_or_stop_the_parents_server(runs: Runs, tmp_path: Path) -> None:
    # A child made by fork (multiprocessing's default on Linux) shares the pipe to the server's
    # stdin: it drops its copy, so the server ends with its real owner, and its exit stops nothing.
    program = tmp_path / "fork.py"
    program.write_text(
        """
import os, sys
from svc_sandbox import Server
server = Server.start()
child = os.fork()
if child == 0:
    sys.exit(0)  # runs atexit: must not stop the parent's server
os.waitpid(child, 0)
print("PID", server.pid, len(server.sessions()), flush=True)
if sys.argv[1] == "hang":
    print("READY", flush=True)
    sys.stdin.read()
"""
    )
    env = {key: value for key, value in os.environ.items() if key != "SVC_SANDBOX_URL"}
    done = runs.start([sys.executable, str(program), "end"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stdout, stderr = done.communicate(timeout=RUN_WITHIN)
    assert done.returncode == 0, stderr.decode()
    assert int(stdout.split()[2]) >= 1  # the server answered after the child exited
    assert_gone(int(stdout.split()[1]))

    parent = runs.start([sys.executable, str(program), "hang"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
    pid = int(await_line(parent, b"PID ").split()[0])
    await_line(parent, b"READY")
    parent.kill()  # the child is gone, and SIGKILL leaves no atexit: only the pipe can stop it
    parent.wait(RUN_WITHIN)
    assert_gone(pid)


def group_members(pgid: int) -> List[int]:
    """The live (not zombie) processes of process group ``pgid`` (Linux's /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if int(group) == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


def test_sigkill_to_the_process_group_of_an_xdist_run_leaves_nothing(runs: Runs, tmp_path: Path) -> None:
    """What the docs tell CI to do, `kill -9 -- -PGID`: the controller and its workers end at once, and
    the workers' servers with them. (A SIGKILL of the controller alone leaves its workers about 15 s.)"""
    process = run_pytest(runs, tmp_path, "wait", "-p", "xdist", "-n", "2")
    deadline = time.monotonic() + RUN_WITHIN
    while not (tmp_path / "server.pid").exists():
        assert process.poll() is None and time.monotonic() < deadline, "the run never started its server"
        time.sleep(0.05)
    server = recorded_pid(tmp_path)
    assert len(group_members(process.pid)) >= 3  # the controller and two workers (each server has a session of its own)

    os.killpg(process.pid, signal.SIGKILL)
    process.wait(RUN_WITHIN)

    assert_gone(server)
    deadline = time.monotonic() + GONE_WITHIN
    while group_members(process.pid):
        assert time.monotonic() < deadline, f"left running: {group_members(process.pid)}"
        time.sleep(0.02)
