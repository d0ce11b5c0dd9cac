"""Oracle fixtures are run once per session with real JAX; tests read the results."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402


def pytest_configure(config):
  config.addinivalue_line("markers", "agreement: compares pallas-lsp check with what JAX did")


@pytest.fixture(scope="session")
def oracle_results():
  """{fixture path: result}. ORACLE_REUSE=1 reuses an existing results file,
  re-recording only the fixtures it lacks or that changed since (a stale
  file must not fail, or pass, a comparison)."""
  out = os.environ.get("ORACLE_RESULTS", record.DEFAULT_OUT)
  python = os.environ.get("PALLAS_LSP_PYTHON", sys.executable)
  jobs = int(os.environ.get("ORACLE_JOBS", "2"))
  if os.environ.get("ORACLE_REUSE") == "1" and os.path.exists(out):
    with open(out, encoding="utf-8") as f:
      results = {r["fixture"]: r for r in json.load(f)["results"]}
    recorded_at = os.path.getmtime(out)
    helpers = os.path.join(record.FIXTURES, "helpers")
    changed_helpers = any(os.path.getmtime(os.path.join(helpers, h)) > recorded_at for h in os.listdir(helpers))
    stale = [p for p in record.fixture_paths()
             if p not in results or changed_helpers or os.path.getmtime(p) > recorded_at]
    if stale:
      fresh = record.record(paths=stale, out=out + ".partial", jobs=jobs, python=python)
      results.update({r["fixture"]: r for r in fresh})
      with open(out, "w", encoding="utf-8") as f:
        json.dump({"results": sorted(results.values(), key=lambda r: r["fixture"])}, f, indent=1, sort_keys=True)
    return results
  results = record.record(out=out, jobs=jobs, python=python)
  return {r["fixture"]: r for r in results}


@pytest.fixture(scope="session")
def check_report():
  """`pallas-lsp check --format json` over the fixtures: findings and the
  path matrix of every launch ("launches")."""
  binary = os.environ.get("PALLAS_LSP_BIN")
  if not binary or not os.path.exists(binary):
    pytest.fail("PALLAS_LSP_BIN is not set to a built pallas-lsp")
  proc = subprocess.run([binary, "check", "--format", "json", record.FIXTURES], capture_output=True,
                        text=True, timeout=300)
  assert proc.returncode in (0, 1), proc.stderr
  return json.loads(proc.stdout)
