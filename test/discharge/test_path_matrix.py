"""The path matrix (`check --format json`: "launches") and `check
--assume-path`, through the real binary on oracle fixtures whose outcome on
each path real JAX confirms (test/oracle)."""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, "test", "oracle", "fixtures")


def _check(*args):
  binary = os.environ.get("PALLAS_LSP_BIN")
  if not binary or not os.path.exists(binary):
    pytest.fail("PALLAS_LSP_BIN is not set to a built pallas-lsp")
  return subprocess.run([binary, "check", *args], capture_output=True, text=True, timeout=120)


def _json(*args):
  proc = _check(*args, "--format", "json")
  assert proc.returncode in (0, 1), proc.stderr
  return json.loads(proc.stdout)


def test_matrix_names_the_compiled_failure_and_the_running_interpreters():
  # compiled_pc_reciprocal: Mosaic GPU has no rule for reciprocal (oracle,
  # lowered for cuda); interp_pc_reciprocal_ok: interpret=True runs it.
  doc = _json(os.path.join(ORACLE, "compiled_pc_reciprocal.py"))
  [launch] = doc["launches"]
  paths = launch["paths"]
  assert paths["compiled_sm90a"]["runs"] == "no"
  assert paths["compiled_sm90a"]["primitive"] == "reciprocal"
  assert "Unimplemented primitive in Pallas Mosaic GPU lowering: reciprocal" in paths["compiled_sm90a"]["error"]
  assert paths["compiled_sm90a"]["at"]["range"]["start"]["line"] == 9  # 0-based: the `# <- blame` line
  assert paths["interpret"] == {"runs": "yes"}
  assert paths["gpu_interpret"] == {"runs": "yes"}


def test_matrix_tells_hopper_from_blackwell_for_wgmma():
  doc = _json(os.path.join(ORACLE, "gpu_wgmma_ok.py"))
  [launch] = doc["launches"]
  assert launch["paths"]["compiled_sm90a"]["runs"] == "yes"
  assert launch["paths"]["compiled_sm100a"]["runs"] == "no"
  assert "sm_90a" in launch["paths"]["compiled_sm100a"]["error"]


@pytest.mark.parametrize("fixture,runs", [("flow_namedtuple_field_param.py", "no"),
                                           ("flow_namedtuple_field_param_ok.py", "yes")])
def test_matrix_follows_the_kernel_callers_pass(fixture, runs):
  # The kernel is `spec.body` of the launching function's parameter: the
  # matrix reads the kernels its callers pass, as the findings do (oracle:
  # JAX fails / runs these on interpret=True).
  doc = _json(os.path.join(ORACLE, fixture))
  [launch] = doc["launches"]
  assert launch["paths"]["interpret"]["runs"] == runs, launch["paths"]["interpret"]


def test_matrix_leaves_out_launches_for_other_backends():
  doc = _json(os.path.join(ORACLE, "flow_scope_tpu_barrier_semaphore_ok.py"))
  assert "launches" not in doc and doc["findings"] == []


@pytest.mark.parametrize("path,expect", [("interpret", "PLS001"), ("gpu-interpret", "PLS001"), ("compiled", None)])
def test_assume_path_judges_every_launch_on_that_path(path, expect):
  # compiled_pc_inline_ok runs compiled (oracle); interpret_hlo and the GPU
  # interpreter cannot run its inline_mgpu (gpu_pc_inline_ref, interp_pc_inline_ref).
  fixture = os.path.join(ORACLE, "compiled_pc_inline_ok.py")
  assert _json(fixture)["findings"] == []
  found = _json(fixture, "--assume-path", path)["findings"]
  assert [f["code"] for f in found] == ([expect] if expect else [])
  assert all(f["severity"] == "error" for f in found)


def test_assume_path_rejects_an_unknown_path():
  proc = _check(os.path.join(ORACLE, "compiled_pc_inline_ok.py"), "--assume-path", "tpu")
  assert proc.returncode == 2 and "--assume-path" in proc.stderr
