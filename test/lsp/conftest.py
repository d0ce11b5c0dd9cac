import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lspclient import BIN, StdioServer  # noqa: E402


def pytest_configure(config):
    if not os.access(BIN, os.X_OK):
        raise pytest.UsageError(f"pallas-lsp binary not found at {BIN}; set PALLAS_LSP_BIN")


@pytest.fixture
def server():
    s = StdioServer("--test-methods", "--debounce-ms", "5")
    yield s
    s.kill()


@pytest.fixture
def ready(server):
    """A server after initialize/initialized (UTF-16, push diagnostics)."""
    server.initialize()
    return server
