"""svc_sandbox: the svc-sandbox server from Python tests, its virtual clock under the test's control.

``Server.start()`` finds or starts the server (once per process); ``server.session()`` makes a
sandbox of its own per test; the pytest plugin gives the fixtures ``svc_server`` and
``svc_sandbox``, unittest ``SandboxTestCase``. Standard library only.
"""

from .errors import SandboxConnectionError, SandboxError, SandboxTimeoutError, ServerStartError
from .fake_sleep import FakeSleep
from .server import Server
from .session import Session
from .testcase import SandboxTestCase
from .types import AdvanceResult, ApiKey, Attempt, Delivery, Duration, Event, Fault, RequestRecord, ScenarioResult, SessionInfo
from .webhooks import verify_webhook

__version__ = "0.1.0"

# `pytest -p svc_sandbox` loads the plugin where it is not installed (PYTHONPATH=clients/python/src):
# pytest registers this module under the entry point's name, then the plugin module it names here.
pytest_plugins = ["svc_sandbox.pytest_plugin"]

__all__ = [
    "AdvanceResult",
    "ApiKey",
    "Attempt",
    "Delivery",
    "Duration",
    "Event",
    "FakeSleep",
    "Fault",
    "RequestRecord",
    "SandboxConnectionError",
    "SandboxError",
    "SandboxTestCase",
    "SandboxTimeoutError",
    "ScenarioResult",
    "Server",
    "ServerStartError",
    "Session",
    "SessionInfo",
    "verify_webhook",
]
