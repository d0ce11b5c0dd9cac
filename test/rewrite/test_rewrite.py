"""The inline_mgpu rewrite, verified with real JAX on CPU (issue 5).

For each fixture in fixtures/: ask for the fix through rewrite_tool (the same
Project-level entry the server uses), apply its edits to a copy, run the
rewritten kernel with interpret=True and compare with the fixture's numpy
reference of what the original body computes. The original must fail the
same way JAX says (the reason the rewrite exists). Fixtures marked
`pallas-lsp-no-rewrite` must get no fix, and the named blocker at the line
marked `# blocker`.

Env: PALLAS_REWRITE_TOOL (path to rewrite_tool).
"""
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "fixtures").glob("*.py"))
TOOL = os.environ.get("PALLAS_REWRITE_TOOL", "")


def header(path, key):
  m = re.search(rf"^# {key}: (\S+)(?: (.*))?$", path.read_text(), re.M)
  return (m.group(1), m.group(2)) if m else None


REWRITE = [f for f in FIXTURES if header(f, "pallas-lsp-rewrite")]
BLOCKED = [f for f in FIXTURES if header(f, "pallas-lsp-no-rewrite")]


def ask(path, name):
  lines = path.read_text().splitlines()
  line = next(i for i, l in enumerate(lines) if re.match(rf"\s*def {name}\(", l))
  col = lines[line].index("def ")
  out = subprocess.run([TOOL, str(path), str(line + 1), str(col + 1)], capture_output=True,
                       text=True, timeout=60, check=True)
  return json.loads(out.stdout)


def apply_edits(text, edits):
  """Edits are 0-based (line, UTF-8 byte column); apply from the last one."""
  data = text.encode()
  starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]

  def off(pos):
    return starts[pos[0]] + pos[1] if pos[0] < len(starts) else len(data)

  for e in sorted(edits, key=lambda e: (e["start"], e["end"]), reverse=True):
    data = data[:off(e["start"])] + e["newText"].encode() + data[off(e["end"]):]
  return data.decode()


def load(path, name):
  spec = importlib.util.spec_from_file_location(name, path)
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod


@pytest.fixture(scope="module", autouse=True)
def _tool():
  if not TOOL or not os.path.exists(TOOL):
    pytest.fail("PALLAS_REWRITE_TOOL does not name the built rewrite_tool")


def test_enough_fixtures():
  # Issue 15: at least 30 regions verified numerically.
  assert len(REWRITE) >= 30 and len(BLOCKED) >= 4


@pytest.mark.parametrize("fixture", REWRITE, ids=lambda p: p.stem)
def test_rewrite_runs_and_matches_reference(fixture, tmp_path):
  name = header(fixture, "pallas-lsp-rewrite")[0]
  reply = ask(fixture, name)
  assert reply["fix"] is not None, reply
  fix = reply["fix"]
  assert fix["safety"] == "unsafe"
  original = fixture.read_text()
  rewritten = apply_edits(original, fix["edits"])
  # The edit never loses user text: outside the replaced def, the file is
  # the same, and the def keeps its name.
  assert re.search(rf"^\s*def {name}\(", rewritten, re.M)
  assert "inline_mgpu(" not in rewritten.split(f"def {name}(")[1].split("\ndef ")[0]
  copy = tmp_path / fixture.name
  copy.write_text(rewritten)
  mod = load(copy, "rewritten_" + fixture.stem)
  args = mod.inputs()
  got = np.asarray(mod.run(*args))
  want = np.asarray(mod.reference(*[np.asarray(a).astype(np.float32) if a.dtype.name == "bfloat16" else a
                                    for a in map(np.asarray, args)]))
  assert got.shape == want.shape, (got.shape, want.shape, rewritten)
  assert got.dtype == mod.run(*args).dtype
  np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-2, atol=1e-5,
                             err_msg=rewritten)


@pytest.mark.parametrize("fixture", REWRITE, ids=lambda p: p.stem)
def test_original_fails_in_interpret_mode(fixture):
  # Why the rewrite exists: JAX cannot discharge the original.
  mod = load(fixture, "original_" + fixture.stem)
  with pytest.raises(NotImplementedError):
    mod.run(*mod.inputs())


@pytest.mark.parametrize("fixture", BLOCKED, ids=lambda p: p.stem)
def test_no_rewrite_names_the_blocker(fixture):
  name, blocker = header(fixture, "pallas-lsp-no-rewrite")
  reply = ask(fixture, name)
  assert reply["fix"] is None, reply
  assert blocker in reply["blocker"], reply
  marked = next(i + 1 for i, l in enumerate(fixture.read_text().splitlines()) if l.rstrip().endswith("# blocker"))
  assert reply["blockerLine"] == marked, reply
  assert reply["hover"] == f"not rewritable: uses {reply['blocker']} at line {marked}"


BIN = os.environ.get("PALLAS_LSP_BIN", "")


@pytest.mark.parametrize("fixture", REWRITE, ids=lambda p: p.stem)
def test_check_fix_through_the_real_binary(fixture, tmp_path):
  """`pallas-lsp check --fix --unsafe-fixes` on a copy: the rewrite is the
  first fix of the PLS001 finding, so it is the one applied."""
  # A missing binary or a missing fix is a failure, never a skip: a skip
  # here once hid `--unsafe-fixes` dropping the rewrite (issue 19).
  assert BIN and os.path.exists(BIN), f"PALLAS_LSP_BIN ({BIN!r}) is not a built pallas-lsp"
  name = header(fixture, "pallas-lsp-rewrite")[0]
  copy = tmp_path / fixture.name
  original = fixture.read_text()
  copy.write_text(original)
  proc = subprocess.run([BIN, "check", "--no-config", "--fix", "--unsafe-fixes", str(copy)],
                        capture_output=True, text=True, timeout=120)
  assert proc.returncode in (0, 1), proc.stderr
  rewritten = copy.read_text()
  assert "# Rewritten from plgpu.inline_mgpu" in rewritten, (
      f"check --fix --unsafe-fixes did not apply the inline_mgpu rewrite:\n{proc.stdout}{proc.stderr}")
  mod = load(copy, "checked_" + fixture.stem)
  args = mod.inputs()
  got = np.asarray(mod.run(*args))
  want = np.asarray(mod.reference(*[np.asarray(a).astype(np.float32) if a.dtype.name == "bfloat16" else a
                                    for a in map(np.asarray, args)]))
  np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-2, atol=1e-5,
                             err_msg=rewritten)


# ---- "Use GPU interpret mode" (interpret=InterpretGPUParams()) -------------

GPU_FIXTURES = sorted((HERE / "gpu_interpret").glob("*.py"))
GPU_TITLE = "Use GPU interpret mode"


def gpu_header(path):
  m = re.search(r"^# pallas-lsp-gpu-interpret: (offered|not-offered)$", path.read_text(), re.M)
  assert m, f"{path.name} lacks its pallas-lsp-gpu-interpret header"
  return m.group(1)


def check_json(path):
  if not BIN or not os.path.exists(BIN):
    pytest.fail("PALLAS_LSP_BIN does not name the built pallas-lsp")
  out = subprocess.run([BIN, "check", "--no-config", "--format", "json", str(path)],
                       capture_output=True, text=True, timeout=120)
  assert out.returncode == 1, out.stderr  # the interpret=True launch fails: findings
  return json.loads(out.stdout)["findings"]


def gpu_fix(findings):
  fixes = [fix for f in findings for fix in f["fixes"] if fix["title"].startswith(GPU_TITLE)]
  return fixes


def with_gpu_interpret_by_hand(text):
  """What the user would write by hand: the same kernel in GPU interpret mode."""
  return ("from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams\n" +
          text.replace("interpret=True", "interpret=InterpretGPUParams()"))


def run_module(path, name):
  mod = load(path, name)
  args = mod.inputs()
  return mod, np.asarray(mod.run(*args)), np.asarray(mod.reference(*map(np.asarray, args)))


def test_enough_gpu_interpret_fixtures():
  kinds = [gpu_header(f) for f in GPU_FIXTURES]
  assert kinds.count("offered") >= 2 and kinds.count("not-offered") >= 2


@pytest.mark.parametrize("fixture", [f for f in GPU_FIXTURES if gpu_header(f) == "offered"],
                         ids=lambda p: p.stem)
def test_gpu_interpret_fix_offered_applied_and_runs(fixture, tmp_path):
  # Why the fix exists: interpret=True cannot run this kernel.
  with pytest.raises(NotImplementedError):
    run_module(fixture, "gpu_original_" + fixture.stem)
  findings = check_json(fixture)
  launches = {json.dumps(f["launch"]) for f in findings if f["code"] in ("PLS001", "PLS002")}
  assert launches, findings
  fixes = gpu_fix(findings)
  # Offered on every finding of the launch, always as the same edit.
  assert len(fixes) == len([f for f in findings if f["code"] in ("PLS001", "PLS002")]), findings
  assert all(fix["safety"] == "unsafe" for fix in fixes)
  assert len({json.dumps(fix["edits"], sort_keys=True) for fix in fixes}) == 1
  # check's JSON nests positions under "range" ({line, column}); apply_edits
  # takes rewrite_tool's flat [line, column] pairs.
  edits = [{"start": [e["range"]["start"]["line"], e["range"]["start"]["column"]],
            "end": [e["range"]["end"]["line"], e["range"]["end"]["column"]], "newText": e["newText"]}
           for e in fixes[0]["edits"]]
  assert all(e["path"] == str(fixture) for e in fixes[0]["edits"])
  rewritten = apply_edits(fixture.read_text(), edits)
  assert "interpret=InterpretGPUParams()" in rewritten and "interpret=True" not in rewritten
  copy = tmp_path / fixture.name
  copy.write_text(rewritten)
  # Real JAX runs the fixed kernel in GPU interpret mode (on CPU) and agrees
  # with numpy; and pallas-lsp has nothing left to say about it.
  _, got, want = run_module(copy, "gpu_fixed_" + fixture.stem)
  np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=rewritten)
  out = subprocess.run([BIN, "check", "--no-config", "--format", "json", str(copy)],
                       capture_output=True, text=True, timeout=120)
  assert out.returncode == 0, out.stdout


@pytest.mark.parametrize("fixture", [f for f in GPU_FIXTURES if gpu_header(f) == "not-offered"],
                         ids=lambda p: p.stem)
def test_gpu_interpret_fix_not_offered_where_it_cannot_run(fixture, tmp_path):
  findings = check_json(fixture)
  assert findings and not gpu_fix(findings), findings
  # Real JAX agrees: the same kernel in GPU interpret mode fails too.
  copy = tmp_path / fixture.name
  copy.write_text(with_gpu_interpret_by_hand(fixture.read_text()))
  with pytest.raises(NotImplementedError):
    run_module(copy, "gpu_by_hand_" + fixture.stem)
