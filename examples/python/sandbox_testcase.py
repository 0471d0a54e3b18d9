"""Per-test isolation: every test gets a session of its own, so tests never share time or state."""

import unittest

from sandbox_client import Api, Session


class SandboxTestCase(unittest.TestCase):
    SEED = 42  # same seed + same requests = same ids, so failures reproduce

    def setUp(self):
        self.session = Session.create(seed=self.SEED)  # POST /__sandbox/sessions {seed}
        self.api = Api(self.session.api_key)  # its key routes to this session on /v1

    def tearDown(self):
        self.session.delete()  # DELETE /__sandbox/sessions/{id}: its keys are 401 from now on
