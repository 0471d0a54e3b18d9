"""The control layer is generated from the served control document, and reaches every operation of it.

clients/control-operations.json is what scripts/generate-clients.mjs read from a real server; the
generated ``_operations.py`` must name each operation as a method of ``ControlApi`` (none is left
out), and each method must send exactly the method, path, query and body it describes.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from svc_sandbox import Server, Session
import svc_sandbox._operations as generated
from svc_sandbox import SandboxError
from svc_sandbox._operations import OPERATIONS, ControlApi

DOCUMENT = Path(__file__).resolve().parents[1] / ".." / "control-operations.json"
OPERATIONS_OF_DOCUMENT: List[Dict[str, Any]] = json.loads(DOCUMENT.read_text(encoding="utf-8"))


def test_every_operation_of_the_document_is_a_method() -> None:
    ids = {operation["operationId"] for operation in OPERATIONS_OF_DOCUMENT}
    assert len(ids) > 50

    missing = sorted(ids - set(OPERATIONS))
    assert missing == [], f"operations no method sends: run `npm run build && node scripts/generate-clients.mjs`: {missing}"
    assert sorted(set(OPERATIONS) - ids) == [], "the generated file names operations the document no longer has"
    for operation_id, name in OPERATIONS.items():
        assert callable(getattr(ControlApi, name, None)), f"{operation_id}: ControlApi has no method {name}"


def test_no_operation_is_excluded() -> None:
    assert not hasattr(generated, "EXCLUDED")
    for operation_id in ("getConsole", "streamSession", "consoleRecordingAudio", "getOpenApi", "getOpenApi30"):
        assert OPERATIONS[operation_id]


class Recorder:
    """A transport that answers nothing and remembers what each call would have sent."""

    def __init__(self) -> None:
        self.sent: List[Tuple[str, str, Any, Dict[str, Any]]] = []

    def request(self, method: str, path: str, body: Any = None, **options: Any) -> Any:
        self.sent.append((method, path, body, options))
        return None


SENT = OPERATIONS_OF_DOCUMENT


def expected_answer(operation: Dict[str, Any]) -> str:
    content_type = operation.get("contentType") or ""
    if operation["status"] == 204:
        return "none"
    if "json" in content_type:
        return "json"
    if content_type == "text/event-stream":
        return "events"
    return "text" if content_type.startswith("text/") else "bytes"


@pytest.mark.parametrize("operation", SENT, ids=lambda operation: operation["operationId"])
def test_each_method_sends_what_the_document_describes(operation: Dict[str, Any]) -> None:
    recorder = Recorder()
    method = getattr(ControlApi(recorder, timeout=3.0), OPERATIONS[operation["operationId"]])  # type: ignore[arg-type]
    # Each path parameter an awkward value: it must arrive as one percent-encoded segment.
    values = {name: f"{name}/+1 ?#" for name in operation["pathParams"]}
    arguments = [values[name] for name in operation["pathParams"]]
    keywords: Dict[str, Any] = {}
    if operation["body"]:
        arguments.append({"probe": 1})
    if "limit" in operation["query"]:
        keywords["limit"] = 7
    if "cursor" in operation["query"]:
        keywords["cursor"] = "c/1"

    method(*arguments, **keywords)

    [(sent_method, path, body, options)] = recorder.sent
    expected_path = "/__sandbox" + re.sub(r"\{(\w+)\}", lambda m: m.group(1) + "%2F%2B1%20%3F%23", operation["path"])
    assert (sent_method, path) == (operation["method"], expected_path)
    assert body == ({"probe": 1} if operation["body"] else None)
    assert dict(options["query"] or {}) == {name: keywords[name] for name in operation["query"]}
    assert options["timeout"] == 3.0
    assert options["session_id"] == (values["s"] if "s" in values else None)
    assert options["expect"] == expected_answer(operation)
    assert options["operation"] == f"ControlApi.{OPERATIONS[operation['operationId']]}"


def test_each_methods_docstring_names_its_route() -> None:
    for operation in OPERATIONS_OF_DOCUMENT:
        name = OPERATIONS.get(operation["operationId"])
        if name is not None:
            assert f"{operation['method']} /__sandbox{operation['path']}" in (inspect.getdoc(getattr(ControlApi, name)) or "")


def test_the_generated_methods_reach_a_real_server(svc_server: Server, svc_sandbox: Session) -> None:
    """The routes a wrapper does not cover, through server.api, as a user would call them."""
    assert svc_server.api.health() == {"status": "ok"}
    assert svc_sandbox.api is not svc_server.api
    page = svc_server.api.console_numbers(svc_sandbox.id, limit=5)
    assert set(page) >= {"data", "has_more"}
    assert svc_server.api.get_open_api()["openapi"].startswith("3.1")
    assert svc_server.api.get_open_api30()["openapi"].startswith("3.0")
    sessions = svc_server.api.list_sessions(limit=1)
    assert len(sessions["data"]) == 1
    html = svc_server.api.get_console()
    assert isinstance(html, str) and "<html" in html.lower()
    for read in ("console_calls", "console_messages", "console_recordings", "console_transcripts", "console_subscriptions", "console_deliveries"):
        assert set(getattr(svc_server.api, read)(svc_sandbox.id, limit=2)) >= {"data", "has_more"}, read


def test_a_recordings_audio_is_the_wav_bytes(svc_server: Server, svc_sandbox: Session) -> None:
    with pytest.raises(SandboxError) as refused:
        svc_server.api.console_recording_audio(svc_sandbox.id, "rec_missing")
    assert refused.value.status == 404


def test_the_stream_opens_with_a_change_frame_that_lists_no_changes(svc_server: Server, svc_sandbox: Session) -> None:
    [first] = svc_server.api.stream_session(svc_sandbox.id, max_events=1, timeout=10)
    assert first["event"] == "change"
    assert first["data"]["changes"] == []
    assert isinstance(first["data"]["now"], str)


def test_the_stream_carries_the_events_a_trigger_made(svc_server: Server, svc_sandbox: Session) -> None:
    made = svc_sandbox.trigger("call.completed")
    frames = svc_server.api.stream_session(svc_sandbox.id, max_events=50, timeout=2)
    events = [frame for frame in frames if frame["event"] == "event"]
    assert events, frames
    assert events[0]["id"] == "1"
    assert made["id"] in [frame["data"].get("id") for frame in events]


def test_the_stream_ends_at_its_timeout_with_what_it_read(svc_server: Server, svc_sandbox: Session) -> None:
    frames = svc_server.api.stream_session(svc_sandbox.id, timeout=0.5)
    # Nothing happened in the session: only changes (another session's end is one of the server's).
    assert frames and {frame["event"] for frame in frames} == {"change"}


def test_the_stream_of_an_unknown_session_is_a_404(svc_server: Server) -> None:
    with pytest.raises(SandboxError) as refused:
        svc_server.api.stream_session("ses_missing", max_events=1, timeout=5)
    assert refused.value.status == 404


def test_an_empty_path_parameter_is_refused_before_any_request() -> None:
    recorder = Recorder()
    with pytest.raises(TypeError, match="non-empty string"):
        ControlApi(recorder).inspect_call("ses_1", "")  # type: ignore[arg-type]
    assert recorder.sent == []


def test_session_and_server_reach_the_operations_through_the_generated_layer_only() -> None:
    """No hand-written control path is left: the wrappers name no route of their own (``control()``'s any-route is no route)."""
    source = Path(__file__).resolve().parents[1] / "src" / "svc_sandbox"
    for name in ("session.py", "scripting.py", "server.py"):
        text = (source / name).read_text(encoding="utf-8").replace('f"/__sandbox/sessions/{wire.segment(self.id)}{path}"', "")
        routes = re.findall(r"[\"']/(?:__sandbox/|advance|events|keys|faults|network|calls|messages|trigger|scenario)\b", text)
        assert routes == [], f"{name} writes control paths by hand: {routes}"
