"""Oracle fixtures are run once per session with real JAX; tests read the results."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402


def pytest_configure(config):
  config.addinivalue_line("markers", "agreement: compares pallas-lsp check with what JAX did")


@pytest.fixture(scope="session")
def oracle_results():
  """{fixture path: result}. ORACLE_REUSE=1 reuses an existing results file."""
  out = os.environ.get("ORACLE_RESULTS", record.DEFAULT_OUT)
  python = os.environ.get("PALLAS_LSP_PYTHON", sys.executable)
  if os.environ.get("ORACLE_REUSE") == "1" and os.path.exists(out):
    with open(out, encoding="utf-8") as f:
      results = json.load(f)["results"]
  else:
    results = record.record(out=out, jobs=int(os.environ.get("ORACLE_JOBS", "2")), python=python)
  return {r["fixture"]: r for r in results}
