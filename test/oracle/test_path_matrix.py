"""Every fixture judged on every path (issue 36): pallas-lsp's path matrix
(`check --format json`, "launches" -> "paths") against what JAX did with the
fixture's launches forced onto each path (forcing.py). Marked `agreement`.

For each fixture and forced path, the launches of the matrix that JAX ran
(their place among the stack's places when JAX built or ran a launch) are
compared with JAX's outcome on that path:

* JAX ran the fixture: each of them "yes" on that path's column (compiled:
  both compiled_sm90a and compiled_sm100a, where a "no" that only says what
  hardware a primitive needs is a "yes": lowering on the CPU checks none).
* JAX raised: one of them "no" with JAX's exception and first line (the
  placeholder rules of test_agreement.py), the primitive JAX's equation
  binds when the blame names one, at the line JAX blames; the others may
  say anything (JAX stopped at the first error).
* "may" only where the fixture decides at run time (path=may or
  binds=may): anywhere else the matrix must decide.

A fixture whose path cannot be meaningfully forced says so in a header line
`# oracle-unforced: <forced path or all>: <reason>` (not compared there); a run
the harness could not force (a run() that needs concrete values, lowered for
cuda; a forced run past its time limit) fails unless it is declared so. Known disagreements of the analysis
are listed, each with its reason, in known_disagreements.txt: they must
fail (strict xfail), so a fix removes its line.
"""
import os

import pytest

import forcing
import known
import oracle_run
import record
from test_agreement import predicted_line_matches

pytestmark = pytest.mark.agreement
FIXTURES = record.fixture_paths()
COLUMNS = {
    "interpret": ("interpret",),
    "gpu-interpret": ("gpu_interpret",),
    "gpu-interpret-mode": ("gpu_interpret",),
    "compiled": ("compiled_sm90a", "compiled_sm100a"),
}
KNOWN = known.read()


def hardware_only(verdict):
  return verdict["runs"] == "no" and verdict.get("error", "").startswith("needs ")


def describe(launch, column):
  v = launch["paths"][column]
  at = v.get("at") or {}
  where = f"{os.path.basename(at['path'])}:{at['range']['start']['line'] + 1}" if at.get("path") else "-"
  return (f"{os.path.basename(launch['path'])}:{launch['range']['start']['line'] + 1} {column}={v['runs']}"
          + ("" if v["runs"] == "yes" else f" ({v.get('primitive')} at {where}: {v.get('error')})"))


def launches_that_ran(report, forced_result):
  sites = {(os.path.abspath(f), line) for f, line in forced_result.get("ran", [])}
  return [l for l in report.get("launches", [])
          if (os.path.abspath(l["path"]), l["range"]["start"]["line"] + 1) in sites]


def explains(verdict, result, launch=None):
  """Whether a "no" (or "may") verdict names the error JAX raised. An error
  JAX blames on the harness's own call of the launch (forcing.py calls it
  when it forces a path) arose at the call, not in the kernel: the verdict
  must then be at the launch itself (a launch-level failure such as the
  shared memory check)."""
  error = verdict.get("error", "")
  want_type = result["errorType"] + ":"
  # A bare `assert` (no message): the matrix says what JAX asserts instead,
  # "AssertionError (<what it checks>)".
  bare = result["message"] == "" and error.startswith(result["errorType"] + " (")
  if not bare:
    if not error.startswith(want_type):
      return False
    predicted = error[len(want_type):].lstrip(" ")
    if not (result["message"] == "" and predicted == "") and not predicted_line_matches(predicted, result["message"]):
      return False
  blame = result.get("blame") or {}
  if blame.get("primitive") and verdict.get("primitive") and blame["primitive"] != verdict["primitive"]:
    return False
  at = verdict.get("at") or {}
  if blame.get("file") and os.path.abspath(blame["file"]) == os.path.abspath(forcing.__file__.replace(".pyc", ".py")):
    return (launch is not None and at.get("path") and os.path.abspath(at["path"]) == os.path.abspath(launch["path"])
            and at["range"]["start"] == launch["range"]["start"])
  if blame.get("line") and at.get("path"):
    return (os.path.abspath(at["path"]) == blame["file"] and at["range"]["start"]["line"] + 1 == blame["line"])
  return True


def check_forced(fixture, force, result, report):
  name = os.path.basename(fixture)
  header = result["header"]
  forced_result = result["forced"][force]
  declared = oracle_run.unforced_declared(fixture)
  if force in declared or "all" in declared:  # said in the header, with its reason: not compared
    return
  if force == "gpu-interpret-mode":
    assert not result["forced"]["gpu-interpret"].get("customParams"), (
        f"{name}'s launches run with InterpretGPUParams other than the defaults, which the matrix judges with and "
        f"the process-wide default mode replaces: say so in `# oracle-unforced: gpu-interpret-mode: <reason>`")
  assert forced_result["outcome"] != "unforced", (
      f"{name} cannot be forced onto {force} ({forced_result['errorType']}: {forced_result['message']}); "
      f"say why in a header line `# oracle-unforced: {force}: <reason>`")
  assert forced_result["outcome"] in ("ok", "error"), forced_result.get("message")
  ran = launches_that_ran(report, forced_result)
  may_ok = header["path"] == "may" or header.get("binds") == "may"
  said = (f"JAX ran {name} forced onto {force}: " + ("ok" if forced_result["outcome"] == "ok" else
          f"{forced_result['errorType']}: {forced_result['message']} at "
          f"{os.path.basename((forced_result.get('blame') or {}).get('file') or '-')}:"
          f"{(forced_result.get('blame') or {}).get('line')}"))
  columns = COLUMNS[force]
  matrix = [describe(l, c) for l in ran for c in columns]
  if not may_ok:
    mays = [describe(l, c) for l in ran for c in columns if l["paths"][c]["runs"] == "may"]
    assert not mays, f"{said}; the matrix says may, though {name} decides nothing at run time: {mays}"
  if forced_result["outcome"] == "ok":
    wrong = [describe(l, c) for l in ran for c in columns
             if l["paths"][c]["runs"] != "yes" and not hardware_only(l["paths"][c])
             and not (may_ok and l["paths"][c]["runs"] == "may")]
    assert not wrong, f"{said}; the matrix says it does not run: {wrong}"
    return
  assert ran, f"{said}; no launch of the path matrix ran (launches that ran: {forced_result.get('ran')})"
  for c in columns:
    hits = [l for l in ran if l["paths"][c]["runs"] in (("no", "may") if may_ok else ("no",))
            and explains(l["paths"][c], forced_result, l)]
    assert hits, f"{said}; the matrix ({c}) does not name it: {matrix}"


@pytest.mark.parametrize("force", forcing.FORCED_PATHS)
@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_path_matrix_agrees_with_jax(path, force, oracle_results, check_report, request):
  known.mark(request, KNOWN, path, force)
  check_forced(path, force, oracle_results[path], check_report)


def test_known_disagreements_name_fixtures_and_runs():
  known.check(KNOWN, FIXTURES, ("written",) + forcing.FORCED_PATHS)
