"""The pytest plugin (entry point ``pytest11``, loaded on install): fixtures and snapshots of failed tests.

- ``svc_server``: the process's server, once per test run (per xdist worker: each is a process).
- ``svc_sandbox``: a fresh :class:`Session` per test, deleted after it.
- ``svc_sandbox_options``: the keyword arguments of that session; override the fixture in a
  ``conftest.py``, a module or a class. ``@pytest.mark.svc_sandbox(seed=7)`` overrides them per
  test (the marker nearest the test wins).
- With ``SVC_SANDBOX_SNAPSHOTS=DIR``, each failed test that used ``svc_sandbox`` leaves its
  session's snapshot in ``DIR/<test name>.json``, and its report says how to open it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import stat
import tempfile
import threading
from typing import Any, Dict, Generator, Iterator, Optional, Set

import pytest

from .errors import SandboxError
from ._process import show_command
from .server import Server
from .session import Session

_SESSION = pytest.StashKey[Session]()
SNAPSHOTS = "SVC_SANDBOX_SNAPSHOTS"
_written: Set[str] = set()
_written_lock = threading.Lock()
_NAME_MAX = 120
_invocation_dir: Optional[str] = None
"""Where pytest was started: the shell that runs the printed ``show`` command is there."""


def pytest_configure(config: pytest.Config) -> None:
    global _invocation_dir
    _invocation_dir = str(config.invocation_params.dir)
    config.addinivalue_line(
        "markers",
        "svc_sandbox(**options): options of this test's svc_sandbox session (seed=, start_time=, clock=, ...), over the "
        "svc_sandbox_options fixture",
    )


@pytest.fixture(scope="session")
def svc_server() -> Server:
    """The svc-sandbox server of this test run: ``svc-sandbox exec``'s, or the one this process started.

    It outlives the test session: it is the process's own (``Server.start()``, which
    ``SandboxTestCase`` shares too), stopped when the process ends, however it ends. When no
    server can be found or reached, each test that needs it errors with the one line that says
    why and what to do, not a traceback of the helper's inside.
    """
    try:
        return Server.start()
    except SandboxError as error:
        why = f"{type(error).__name__}: {error}"
    pytest.fail(why, pytrace=False)  # outside the except: no "during handling" chain


@pytest.fixture
def svc_sandbox_options() -> Dict[str, Any]:
    """Keyword arguments of ``svc_server.session()`` for each test's ``svc_sandbox``; override it to set a seed."""
    return {}


@pytest.fixture
def svc_sandbox(svc_server: Server, svc_sandbox_options: Dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Session]:
    """A fresh session per test (its own clock, seed, ids and accounts), deleted after the test."""
    options = dict(svc_sandbox_options)
    for marker in reversed(list(request.node.iter_markers("svc_sandbox"))):
        options.update(marker.kwargs)
    session = svc_server.session(**options)
    request.node.stash[_SESSION] = session
    try:
        yield session
    finally:
        del request.node.stash[_SESSION]
        session.close()


@pytest.hookimpl(hookwrapper=True)  # type: ignore[misc]  # untyped in pytest 7
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    directory = os.environ.get(SNAPSHOTS, "")
    if not directory or not report.failed or report.when not in ("setup", "call"):
        return
    session = item.stash.get(_SESSION, None)
    if session is None or session.closed:
        return
    report.sections.append(("svc-sandbox snapshot", save_snapshot(session, directory, item.nodeid)))


def save_snapshot(session: Session, directory: str, test_name: str) -> str:
    """Writes the session's snapshot under ``directory``; the line to print with the failure."""
    try:
        snapshot = session.snapshot()
        base = _invocation_dir or os.getcwd()
        path = _write_json(os.path.join(base, directory), _file_name(test_name), snapshot)
        shown = os.path.relpath(path, base)
        path = path if shown.startswith("..") else shown
    except Exception as error:  # a report must never fail because its snapshot could not be kept
        return f"no snapshot of session {session.id} kept in {directory}: {error}"
    command = show_command(os.environ, _invocation_dir)
    return " ".join(shlex.quote(part) for part in [*command, "show", path])


def _file_name(test_name: str) -> str:
    """A file name made safe from a test's name: letters, digits, ``.``, ``_`` and ``-``; long ones shortened with a digest."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", test_name).strip("._-") or "test"
    if len(safe) > _NAME_MAX:
        digest = hashlib.sha1(test_name.encode("utf-8")).hexdigest()[:10]
        safe = f"{safe[: _NAME_MAX - 11]}_{digest}"
    return safe


def _write_json(directory: str, name: str, value: Any) -> str:
    """Writes ``value`` to ``directory/name.json`` (or ``name-2.json``, ...), atomically; returns the path.

    A name is used once per run of this process; a file left by an earlier run is replaced, but
    only a regular file: a directory, a link or a FIFO of that name is passed over for the next name.
    """
    os.makedirs(directory, exist_ok=True)
    with _written_lock:
        for n in range(1, 1000):
            path = os.path.join(directory, f"{name}.json" if n == 1 else f"{name}-{n}.json")
            if path in _written:
                continue
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                mode = None
            if mode is not None and not stat.S_ISREG(mode):
                continue
            _written.add(path)
            break
        else:
            raise OSError(f"no free file name for {name} in {directory}")
    handle, temporary = tempfile.mkstemp(prefix=".svc-sandbox-", suffix=".json", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(value, file, indent=2)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path
