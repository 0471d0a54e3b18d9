"""The pytest plugin as a user's suite meets it: fixtures, options, markers, snapshots of failed tests."""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import Optional

import pytest

from svc_sandbox import Server
from svc_sandbox._process import server_command, show_command

SHOW_BOUND = 60.0
"""Real seconds for `show` to print its first line: it starts in about a second (npx: a few), so only a hang reaches this."""

pytest_plugins = ["pytester"]


def ids_written(folder: Path) -> dict:
    return {file.stem: json.loads(file.read_text()) for file in sorted(folder.glob("*.seen"))}


def test_each_test_gets_a_fresh_session_deleted_after_it(pytester: pytest.Pytester, svc_server: Server) -> None:
    pytester.makepyfile(
        test_fresh="""
        import json, pathlib

        def record(name, s):
            pathlib.Path(name + ".seen").write_text(json.dumps({"id": s.id, "key": s.api_key, "now": s.info()["now"]}))

        def test_one(svc_sandbox, svc_server):
            assert svc_sandbox.base_url == svc_server.url
            svc_sandbox.advance("1h")
            record("one", svc_sandbox)

        def test_two(svc_sandbox):
            record("two", svc_sandbox)  # not an hour later: a session of its own
        """
    )

    pytester.runpytest().assert_outcomes(passed=2)

    seen = ids_written(pytester.path)
    assert seen["one"]["id"] != seen["two"]["id"]
    assert (seen["one"]["now"], seen["two"]["now"]) == ("2026-01-01T01:00:00.000Z", "2026-01-01T00:00:00.000Z")
    live = [s["id"] for s in svc_server.sessions()]
    assert seen["one"]["id"] not in live and seen["two"]["id"] not in live


def test_options_come_from_the_fixture_and_the_nearest_marker(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def svc_sandbox_options():
            return {"seed": 5, "start_time": "2026-06-01T00:00:00Z"}
        """
    )
    pytester.makepyfile(
        test_options="""
        import pytest

        def test_fixture(svc_sandbox):
            assert svc_sandbox.info() == {"id": svc_sandbox.id, "seed": 5, "now": "2026-06-01T00:00:00.000Z"}

        @pytest.mark.svc_sandbox(seed=6)
        def test_marker(svc_sandbox):
            assert (svc_sandbox.info()["seed"], svc_sandbox.info()["now"]) == (6, "2026-06-01T00:00:00.000Z")

        @pytest.mark.svc_sandbox(seed=7)
        class TestClass:
            def test_class_marker(self, svc_sandbox):
                assert svc_sandbox.info()["seed"] == 7

            @pytest.mark.svc_sandbox(seed=8)
            def test_nearest_wins(self, svc_sandbox):
                assert svc_sandbox.info()["seed"] == 8
        """
    )

    pytester.runpytest("--strict-markers").assert_outcomes(passed=4)


FAILING = """
import json, urllib.request
import pytest

def place(s):
    request = urllib.request.Request(s.base_url + "/v1/calls", method="POST",
        data=json.dumps({"to": "+14155550123", "from": "+14155550100"}).encode(),
        headers={"Authorization": "Bearer " + s.api_key, "Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(request).read())

def test_passes(svc_sandbox):
    place(svc_sandbox)

@pytest.mark.parametrize("who", ["a/b c"])
def test_fails(svc_sandbox, who):
    place(svc_sandbox)
    svc_sandbox.advance("65s")
    assert False, "the call went wrong"

@pytest.fixture
def broken(svc_sandbox):
    place(svc_sandbox)
    raise RuntimeError("setup went wrong")

def test_setup_fails(broken):
    pass

def test_fails_without_a_sandbox():
    assert False
"""


def test_a_failed_test_leaves_its_snapshot_and_says_how_to_open_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, svc_server: Server
) -> None:
    pytester.makepyfile(test_snap=FAILING)
    monkeypatch.setenv("SVC_SANDBOX_SNAPSHOTS", "snapshots/run")

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=2, errors=1)
    folder = pytester.path / "snapshots" / "run"
    assert sorted(p.name for p in folder.iterdir()) == ["test_snap.py_test_fails_a_b_c.json", "test_snap.py_test_setup_fails.json"]
    for name in ("test_snap.py_test_fails_a_b_c", "test_snap.py_test_setup_fails"):  # each under its failure
        result.stdout.fnmatch_lines(["*- svc-sandbox snapshot -*", f"{shown()} show snapshots/run/{name}.json"])
    snapshot = json.loads((folder / "test_snap.py_test_fails_a_b_c.json").read_text())
    with svc_server.session(snapshot=snapshot) as replayed:  # the failed test's session, as it was
        assert [e["type"] for e in replayed.events()] == ["call.started", "call.answered", "call.completed"]
        assert replayed.info()["now"] == "2026-01-01T00:01:05.000Z"


def shown() -> str:
    return " ".join(shlex.quote(part) for part in show_command(os.environ))


def first_line(process: "subprocess.Popen[bytes]") -> Optional[str]:
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline().decode() or None), daemon=True).start()
    try:
        return lines.get(timeout=SHOW_BOUND)
    except queue.Empty:
        return None


@pytest.mark.parametrize("found", ["SVC_SANDBOX_BIN", "node_modules/.bin"])
def test_the_printed_show_command_runs_as_printed_in_the_users_shell(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, svc_server: Server, found: str
) -> None:
    """Regression: the report printed `svc-sandbox show FILE`, which a shell without it on PATH could not run."""
    cli = server_command(os.environ)[0][-1]
    assert os.path.isfile(cli), f"this test needs SVC_SANDBOX_BIN (or svc-sandbox on PATH), found {cli}"
    if found == "node_modules/.bin":  # a project that installed the tarball: npx finds its bin, a shell does not
        (pytester.path / "node_modules" / ".bin").mkdir(parents=True)
        (pytester.path / "node_modules" / ".bin" / "svc-sandbox").symlink_to(cli)
        monkeypatch.delenv("SVC_SANDBOX_BIN", raising=False)
        monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "svc-sandbox").exists()))
    pytester.makepyfile(test_snap=FAILING)
    monkeypatch.setenv("SVC_SANDBOX_SNAPSHOTS", "snapshots")

    printed = re.findall(r"^(.* show snapshots/\S+\.json)$", pytester.runpytest().stdout.str(), re.M)

    assert printed, "no show command printed"
    line = printed[0]
    if found == "SVC_SANDBOX_BIN":
        assert line.startswith(f"{shlex.quote(cli)} show ")
    elif shutil.which("npx"):
        assert line.startswith("npx svc-sandbox show ")
    else:  # no Node on PATH (scripts/without-node.sh): npx could not run it, the file itself can
        assert line.startswith(f"{shlex.quote(str(pytester.path / 'node_modules' / '.bin' / 'svc-sandbox'))} show ")
    shell = subprocess.Popen(line, shell=True, cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        first = first_line(shell)
        assert first is not None and first.startswith("svc-sandbox showing snapshots/"), (first, shell.poll())
        assert "/__sandbox/console" in first
    finally:
        os.killpg(shell.pid, signal.SIGTERM)
        shell.wait(SHOW_BOUND)
    assert shell.returncode in (0, -signal.SIGTERM)


def test_snapshot_names_are_unique_and_only_regular_files_are_replaced(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_snap=FAILING)
    folder = pytester.path / "snaps"
    folder.mkdir()
    (folder / "test_snap.py_test_fails_a_b_c.json").mkdir()  # not ours to replace
    os.symlink(folder / "elsewhere", folder / "test_snap.py_test_fails_a_b_c-2.json")
    os.mkfifo(folder / "test_snap.py_test_fails_a_b_c-3.json")
    (folder / "test_snap.py_test_setup_fails.json").write_text("left by an earlier run")
    monkeypatch.setenv("SVC_SANDBOX_SNAPSHOTS", str(folder))

    result = pytester.runpytest("-p", "no:randomly")

    result.stdout.fnmatch_lines([f"{shown()} show snaps/test_snap.py_test_fails_a_b_c-4.json"])  # from where pytest started
    assert json.loads((folder / "test_snap.py_test_fails_a_b_c-4.json").read_text())["format"]
    assert json.loads((folder / "test_snap.py_test_setup_fails.json").read_text())["format"]
    assert (folder / "test_snap.py_test_fails_a_b_c.json").is_dir()
    assert not (folder / "elsewhere").exists()
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_without_svc_sandbox_snapshots_nothing_is_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_snap=FAILING)
    monkeypatch.delenv("SVC_SANDBOX_SNAPSHOTS", raising=False)

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=2, errors=1)
    assert "svc-sandbox snapshot" not in result.stdout.str()
    assert sorted(p.name for p in pytester.path.iterdir() if p.suffix == ".json") == []


def test_a_snapshot_that_cannot_be_written_is_reported_not_raised(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_snap=FAILING)
    (pytester.path / "taken").write_text("a file where the folder should be")
    monkeypatch.setenv("SVC_SANDBOX_SNAPSHOTS", "taken")

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=2, errors=1)
    result.stdout.fnmatch_lines(["no snapshot of session ses_* kept in taken: *"])


def test_file_names_are_made_safe_and_short() -> None:
    from svc_sandbox.pytest_plugin import _file_name

    assert _file_name("tests/test_calls.py::TestX::test_y[+1415 a/b]") == "tests_test_calls.py_TestX_test_y_1415_a_b"
    assert _file_name("::..::") == "test"
    long = _file_name("t.py::test_" + "x" * 300)
    assert len(long) == 120 and long != _file_name("t.py::test_" + "x" * 301)


def test_an_unreachable_server_is_one_line_of_cause_per_test_not_a_traceback(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the error printed 356 lines of the helper's traceback and exception chain before its one useful line."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("SVC_SANDBOX_URL", f"http://127.0.0.1:{port}/__sandbox")
    pytester.makepyfile(test_x="def test_one(svc_sandbox):\n    pass\n\ndef test_two(svc_sandbox):\n    pass\n")

    result = pytester.runpytest()

    result.assert_outcomes(errors=2)
    output = result.stdout.str()
    errors = [line for line in output.splitlines() if "SandboxConnectionError" in line and "ERROR" not in line]
    assert len(errors) == 2
    assert errors[0].startswith(f"SandboxConnectionError: Server.start failed: connection_failed: SVC_SANDBOX_URL=http://127.0.0.1:{port}")
    assert "Unset SVC_SANDBOX_URL" in errors[0]
    assert "Traceback" not in output and "During handling" not in output and "direct cause" not in output
    assert len(output.splitlines()) < 30
