"""PLS005's arithmetic against JAX's own: for every shared-memory fixture
(the failing ones and their twins that lower), the SMEM `pallas-lsp check
--format json` gives the launch (`launches[].smem`) is exact and equal, byte
for byte, to the `smem_bytes` JAX 0.10.2's Mosaic GPU lowering computes
(smem_bytes.py). Marked `agreement`; needs PALLAS_LSP_BIN."""
import glob
import json
import os
import subprocess
import sys

import pytest

import record

pytestmark = pytest.mark.agreement
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(record.FIXTURES, "compiled_smem_*.py")))


@pytest.fixture(scope="module")
def jax_bytes():
  python = os.environ.get("PALLAS_LSP_PYTHON", sys.executable)
  proc = subprocess.run([python, os.path.join(HERE, "smem_bytes.py"), *FIXTURES], capture_output=True,
                        text=True, timeout=600, cwd=record.FIXTURES)
  assert proc.returncode == 0, proc.stderr[-2000:]
  return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def launches():
  binary = os.environ.get("PALLAS_LSP_BIN")
  if not binary or not os.path.exists(binary):
    pytest.fail("PALLAS_LSP_BIN is not set to a built pallas-lsp")
  proc = subprocess.run([binary, "check", "--format", "json", *FIXTURES], capture_output=True, text=True,
                        timeout=300)
  assert proc.returncode in (0, 1), proc.stderr
  return json.loads(proc.stdout).get("launches", [])


def test_there_are_fixtures():
  assert len(FIXTURES) >= 10


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_smem_budget_equals_jax(path, jax_bytes, launches):
  want = jax_bytes[path]
  assert want is not None, f"JAX's lowering of {os.path.basename(path)} failed before its SMEM check"
  mine = [l for l in launches if os.path.abspath(l["path"]) == path and l.get("smem")]
  assert len(mine) == 1, f"{os.path.basename(path)}: launches with a budget: {mine}"
  smem = mine[0]["smem"]
  assert smem["exact"], f"{os.path.basename(path)}: budget not exact: {smem['summary']}"
  assert smem["bytes"] == want, f"{os.path.basename(path)}: pallas-lsp {smem['summary']}, JAX smem_bytes={want}"
  assert sum(p["bytes"] for p in smem["parts"]) == want
