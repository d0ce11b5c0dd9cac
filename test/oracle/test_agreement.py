"""The agreement half of the oracle: pallas-lsp's findings agree with what JAX
did, both ways. Marked `agreement`; needs PALLAS_LSP_BIN (the analysis)."""
import json
import os
import subprocess

import pytest

import record

pytestmark = pytest.mark.agreement
FIXTURES = record.fixture_paths()


@pytest.fixture(scope="session")
def findings():
  binary = os.environ.get("PALLAS_LSP_BIN")
  if not binary or not os.path.exists(binary):
    pytest.fail("PALLAS_LSP_BIN is not set to a built pallas-lsp")
  proc = subprocess.run([binary, "check", "--format", "json", record.FIXTURES], capture_output=True,
                        text=True, timeout=300)
  assert proc.returncode in (0, 1), proc.stderr
  return json.loads(proc.stdout)["findings"]


def _path(location):
  if isinstance(location, dict):
    return os.path.abspath(location.get("path") or location.get("uri", "").removeprefix("file://"))
  return None


def expected_code(result):
  text = f"{result.get('message', '')} {(result.get('blame') or {}).get('primitive') or ''}"
  return "PLS001" if "inline_mgpu" in text else "PLS002"


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_findings_agree_with_jax(path, oracle_results, findings):
  result = oracle_results[path]
  mine = [f for f in findings if _path(f) == path or _path(f.get("launch")) == path]
  if result["outcome"] == "ok":
    errors = [f for f in mine if f["severity"] == "error"]
    assert not errors, f"JAX ran {os.path.basename(path)} but pallas-lsp reports {errors}"
    return
  blame, code = result["blame"], expected_code(result)
  hits = [f for f in findings if f["code"] == code and _path(f) == blame["file"]
          and f["range"]["start"]["line"] == blame["line"] - 1]
  assert hits, (f"JAX raised {result['errorType']}: {result['message']} at "
                f"{blame['file']}:{blame['line']}; expected {code} there")
