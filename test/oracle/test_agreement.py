"""The agreement half of the oracle: pallas-lsp's findings agree with what JAX
did, per fixture and per launch, both ways. Marked `agreement`; needs
PALLAS_LSP_BIN (the analysis).

The rules (issue 19), for the findings whose launch is the fixture's own
(attribution: a finding through a shared helper counts for the fixture whose
launch reaches it, never for another fixture that calls the same helper):

* Path: a fixture with a fixed path gets findings on that path only. Every
  path JAX ran (the fixture's run, and its `also=` run) is checked:
  - JAX ran it: no finding on that path, not even a warning (binds=may: a
    warning that says the primitive may not be bound at all);
  - JAX raised: a finding on that path at the line JAX blames, with the code
    of the primitive (PLS001 for inline_mgpu, else PLS002; a fixture whose
    header says code=PLS00N expects that code), and:
      severity  error, and marked as the first error JAX raises for the
                launch; a warning only where the fixture declares a
                run-time choice (path=may) or a shape-dependent bind
                (binds=may);
      type      the exception type it predicts is the one JAX raised;
      message   the first line it predicts matches JAX's first line, and
                the message shown to the user says "will raise <type>:
                <that line>".
* A run-time choice (path=may) never yields an error, only warnings.

Message comparison, the one normalisation: a `<...>` placeholder in the
predicted line stands for text only the running program knows (an
operand's id and shape, an effect set with object addresses); it matches
any non-empty text. Everything else must be equal character for
character, and the prediction must start with literal text.
"""
import json
import os
import re
import subprocess

import pytest

import oracle_run
import record

pytestmark = pytest.mark.agreement
FIXTURES = record.fixture_paths()
PATH_LABELS = {
    "interpret": "interpret=True (HLO interpreter)",
    "gpu-interpret": "GPU interpret mode (InterpretGPUParams)",
    "compiled": "compiled (Mosaic GPU)",
}
FIRST = "This is the first error JAX raises for this launch."
PLACEHOLDER = re.compile(r"<[^<>]+>")


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
  # Fixtures of the other rules name their code (`code=PLS005`).
  if result.get("header", {}).get("code"):
    return result["header"]["code"]
  text = f"{result.get('message', '')} {(result.get('blame') or {}).get('primitive') or ''}"
  return "PLS001" if "inline_mgpu" in text else "PLS002"


def predicted_line_matches(predicted, actual):
  """The predicted first line equals JAX's, a `<...>` placeholder matching
  any non-empty text."""
  if not predicted or PLACEHOLDER.match(predicted):
    return False
  parts = PLACEHOLDER.split(predicted)
  return re.fullmatch(".+?".join(re.escape(p) for p in parts), actual, re.S) is not None


def where(f):
  return f"{os.path.basename(f['path'])}:{f['range']['start']['line'] + 1} {f['severity']} {f['code']} ({f['executionPath']})"


def runs(result):
  """(path JAX ran, its result) for the fixture's run and its also= run."""
  header = result["header"]
  yield (header["choice"] if header["path"] == "may" else header["path"]), result
  if "also" in result:
    yield header["also"], result["also"]


def check_run(fixture, ran, result, mine, warn_only, binds_may):
  label = PATH_LABELS[ran]
  on_path = [f for f in mine if f["executionPath"] == label]
  name = os.path.basename(fixture)
  if result["outcome"] == "ok":
    # binds=may: the shape-dependent bind JAX did not take this time may
    # still be warned about, as such; nothing else.
    unexplained = [where(f) for f in on_path
                   if not (binds_may and f["severity"] == "warning" and "binds it at all" in f["message"])]
    assert not unexplained, f"JAX ran {name} on {label}, but pallas-lsp reports: {unexplained}"
    return
  blame, code = result["blame"], expected_code(result)
  said = (f"JAX raised {result['errorType']}: {result['message']} at {os.path.basename(blame['file'])}:"
          f"{blame['line']} on {label}")
  hits = [f for f in on_path if f["code"] == code and _path(f) == blame["file"]
          and f["range"]["start"]["line"] == blame["line"] - 1]
  assert hits, f"{said}; expected {code} there from {name}'s launch, got {[where(f) for f in mine]}"
  hit = hits[0]
  want = "warning" if warn_only else "error"
  assert hit["severity"] == want, f"{said}; pallas-lsp says {hit['severity']}, wanted {want}"
  if want == "error":
    assert FIRST in hit["message"], f"{said}; pallas-lsp does not mark it the launch's first error"
    others = [where(f) for f in on_path if f is not hit and FIRST in f["message"]]
    assert not others, f"{said}; pallas-lsp marks other findings first: {others}"
  predicted = hit.get("jaxError") or {}
  assert predicted.get("type") == result["errorType"], f"{said}; pallas-lsp predicts {predicted}"
  # JAX's bare `assert` (a tiling that does not divide its shape) says
  # nothing: then the prediction must be that nothing, exactly.
  bare = result["message"] == "" and predicted.get("firstLine") == ""
  assert bare or predicted_line_matches(predicted.get("firstLine"), result["message"]), (
      f"{said}; pallas-lsp predicts the message {predicted.get('firstLine')!r}")
  shown = f"will raise {predicted['type']}" + (f": {predicted['firstLine']}" if predicted["firstLine"] else "")
  assert shown in hit["message"], f"the message does not say {shown!r}: {hit['message']}"


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_findings_agree_with_jax(path, oracle_results, findings):
  result = oracle_results[path]
  header = result["header"]
  # Attribution: findings of this fixture's launches, wherever they are.
  mine = [f for f in findings if _path(f.get("launch")) == path]
  strays = [where(f) for f in findings if _path(f) == path and _path(f.get("launch")) != path]
  assert not strays, f"findings in {os.path.basename(path)} attributed to another file's launch: {strays}"
  may = header["path"] == "may"
  if may:
    errors = [where(f) for f in mine if f["severity"] == "error"]
    assert not errors, f"{os.path.basename(path)} chooses its path at run time, yet pallas-lsp reports errors: {errors}"
  else:
    label = PATH_LABELS[header["path"]]
    elsewhere = [where(f) for f in mine if f["executionPath"] != label]
    assert not elsewhere, f"{os.path.basename(path)} selects {label} only, yet: {elsewhere}"
  warn_only = may or header.get("binds") == "may"
  for ran, run in runs(result):
    check_run(path, ran, run, mine, warn_only, header.get("binds") == "may")


def test_placeholder_matching():
  assert predicted_line_matches("a <x> b", "a anything b")
  assert not predicted_line_matches("a <x> b", "a  b c")
  assert not predicted_line_matches("<anything>", "whatever JAX said")
  assert not predicted_line_matches("", "")
  assert predicted_line_matches("inline_mgpu_p does not support discharge.", "inline_mgpu_p does not support discharge.")
  assert not predicted_line_matches("No state discharge rule implemented for primitive: copy_gmem_to_smem",
                                    "No state discharge rule implemented for primitive: copy_smem_to_gmem")
