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

Message comparison, the one normalisation (issue 36: every word checked):
a `<...>` placeholder in the predicted line stands for text only the
running program knows, and only the placeholders of PLACEHOLDERS exist,
each matching only the text it may stand for (a variable's id, an object's
address, the repr of a run-time object, a choice among the names it lists),
never a primitive, transform or exception name. Any other `<...>` is
literal text (JAX's own messages print `<class '...'>`). Everything else
must be equal character for character, and the prediction must start with
literal text.
"""
import os
import re

import pytest

import known
import record

pytestmark = pytest.mark.agreement
FIXTURES = record.fixture_paths()
PATH_LABELS = {
    "interpret": "interpret=True (HLO interpreter)",
    "gpu-interpret": "GPU interpret mode (InterpretGPUParams)",
    "compiled": "compiled (Mosaic GPU)",
}
FIRST = "This is the first error JAX raises for this launch."
ANGLED = re.compile(r"<[^<>]+>")
_OBJECT = r"<[\w.]+ object at 0x[0-9a-f]+>"
# (the placeholder pallas-lsp writes, what JAX prints in its place). Keep
# them narrow: a placeholder that could match a name would let a wrong name
# through (ReshapeTransform for TransposeTransform).
PLACEHOLDERS = [
    # state discharge's "Did not ask for inval to be discharged" names the
    # jaxpr variable (its id is an address) and the traced new value.
    (re.compile(r"<operand \d+ of \w+: [^<>]+>"), r"Var\(id=\d+\):\S+"),
    (re.compile(r"<its new value>"), r"JitTracer\(\S+\)"),
    # "Cannot lower jaxpr with effects: {...}": effect objects with addresses.
    (re.compile(r"<the thread body's effects, \w+'s among them>"), f"{_OBJECT}(, {_OBJECT})*"),
    (re.compile(r"<the barrier's indexers>"), r"\(NDIndexer\(.+\)\)"),
    # plgpu.Mesh's repr (a dataclass): the fields JAX fills in.
    (re.compile(r"<mesh>"), r"Mesh\(grid=\([^)]*\), grid_names=.*, kernel_name=[^,()]*\)"),
    (re.compile(r"<axis name>"), r"\w+"),
    (re.compile(r"<object>"), r"<object object at 0x[0-9a-f]+>"),
    (re.compile(r"<smem_bytes>"), r"\d+"),
    # The fields of a transform JAX cannot apply; its class name is literal.
    (re.compile(r"<its permutation>"), r"\([\d, ]+\)"),
    (re.compile(r"<its shape>"), r"\([\d, ]*\)"),
    (re.compile(r"<its tiling>"), r"\([\d, ]+\)"),
    (re.compile(r"<its swizzle>"), r"\d+"),
    (re.compile(r"<its dtype, shape, offset, alias group and layout>"),
     r"dtype=dtype\('\w+'\), shape=\([\d, ]*\), offset=\d+, alias_group_idx=\d+, layout=\w+"),
]
# `<A or B>`: one of the names listed (semantics passed through a variable).
ALTERNATIVES = re.compile(r"<(\w+(?: or \w+)+)>")


def placeholder_regex(text):
  """The regex a `<...>` of a prediction stands for, or None: literal text."""
  for pattern, regex in PLACEHOLDERS:
    if pattern.fullmatch(text):
      return regex
  if m := ALTERNATIVES.fullmatch(text):
    return "(?:" + "|".join(re.escape(n) for n in m.group(1).split(" or ")) + ")"
  return None


@pytest.fixture(scope="session")
def findings(check_report):
  return check_report["findings"]


def _path(location):
  if isinstance(location, dict):
    return os.path.abspath(location.get("path") or location.get("uri", "").removeprefix("file://"))
  return None


def expected_code(result, header):
  # Fixtures of the other rules name their code (`code=PLS005`; the also=
  # run's is `also-code=`).
  key = "also-code" if "choice" in result and result["choice"] == header.get("also") else "code"
  if header.get(key):
    return header[key]
  text = f"{result.get('message', '')} {(result.get('blame') or {}).get('primitive') or ''}"
  return "PLS001" if "inline_mgpu" in text else "PLS002"


def predicted_line_matches(predicted, actual):
  """The predicted first line equals JAX's, each placeholder of
  PLACEHOLDERS matching what it stands for, any other text literally."""
  if not predicted:
    return False
  regex, at, starts_literal = "", 0, True
  for m in ANGLED.finditer(predicted):
    stands_for = placeholder_regex(m.group(0))
    if stands_for is None:
      continue
    if m.start() == 0:
      starts_literal = False
    regex += re.escape(predicted[at:m.start()]) + f"(?:{stands_for})"
    at = m.end()
  regex += re.escape(predicted[at:])
  return starts_literal and re.fullmatch(regex, actual, re.S) is not None


def where(f):
  return f"{os.path.basename(f['path'])}:{f['range']['start']['line'] + 1} {f['severity']} {f['code']} ({f['executionPath']})"


# Rules JAX raises while it traces the kernel, before any path is taken:
# an error on every path, even where the path is decided at run time.
EVERY_PATH_CODES = {"PLS004", "PLS009"}


def runs(result):
  """(path JAX ran, its result) for the fixture's run and its also= run."""
  header = result["header"]
  yield (header["choice"] if header["path"] == "may" else header["path"]), result
  if "also" in result:
    yield header["also"], result["also"]


def check_run(fixture, header, ran, result, mine, warn_only, binds_may):
  label = PATH_LABELS[ran]
  # A rule JAX raises before any path is taken counts on every path.
  on_path = [f for f in mine if f["executionPath"] == label or f["code"] in EVERY_PATH_CODES]
  name = os.path.basename(fixture)
  if result["outcome"] == "ok":
    # binds=may: the shape-dependent bind JAX did not take this time may
    # still be warned about, as such; nothing else.
    # caught=yes: run() catches the launch's failure (JAX raised it, the
    # program went on): a warning naming the except clause, nothing else.
    caught = header.get("caught") == "yes"
    unexplained = [where(f) for f in on_path
                   if not (binds_may and f["severity"] == "warning" and "binds it at all" in f["message"])
                   and not (caught and f["severity"] == "warning"
                            and "catches it and the program goes on" in f["message"])]
    assert not unexplained, f"JAX ran {name} on {label}, but pallas-lsp reports: {unexplained}"
    return
  blame, code = result["blame"], expected_code(result, header)
  said = (f"JAX raised {result['errorType']}: {result['message']} at {os.path.basename(blame['file'])}:"
          f"{blame['line']} on {label}")
  hits = [f for f in on_path if f["code"] == code and _path(f) == blame["file"]
          and f["range"]["start"]["line"] == blame["line"] - 1]
  assert hits, f"{said}; expected {code} there from {name}'s launch, got {[where(f) for f in mine]}"
  hit = hits[0]
  want = "warning" if warn_only and code not in EVERY_PATH_CODES else "error"
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


KNOWN = known.read()


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_findings_agree_with_jax(path, oracle_results, findings, request):
  known.mark(request, KNOWN, path, "written")
  result = oracle_results[path]
  header = result["header"]
  # Attribution: findings of this fixture's launches, wherever they are.
  # PLS004 (raised while the kernel is traced) names no launch: it counts
  # for the file it is in.
  def launch_of(f):
    return _path(f.get("launch")) or (_path(f) if f["code"] in EVERY_PATH_CODES else None)
  mine = [f for f in findings if launch_of(f) == path]
  strays = [where(f) for f in findings if _path(f) == path and launch_of(f) != path]
  assert not strays, f"findings in {os.path.basename(path)} attributed to another file's launch: {strays}"
  may = header["path"] == "may"
  if may:
    errors = [where(f) for f in mine if f["severity"] == "error" and f["code"] not in EVERY_PATH_CODES]
    assert not errors, f"{os.path.basename(path)} chooses its path at run time, yet pallas-lsp reports errors: {errors}"
  else:
    label = PATH_LABELS[header["path"]]
    elsewhere = [where(f) for f in mine if f["executionPath"] != label and f["code"] not in EVERY_PATH_CODES]
    assert not elsewhere, f"{os.path.basename(path)} selects {label} only, yet: {elsewhere}"
  warn_only = may or header.get("binds") == "may"
  for ran, run in runs(result):
    check_run(path, header, ran, run, mine, warn_only, header.get("binds") == "may")


def test_placeholder_matching():
  # Only the placeholders of PLACEHOLDERS stand for anything; any other
  # <...> is literal text.
  assert predicted_line_matches("a <axis name> b", "a g b")
  assert not predicted_line_matches("a <axis name> b", "a  b")
  assert not predicted_line_matches("a <x> b", "a anything b")
  assert predicted_line_matches("a <x> b", "a <x> b")
  assert not predicted_line_matches("<axis name> says", "g says")
  assert not predicted_line_matches("", "")
  # Issue 36: a placeholder never swallows a name.
  assert predicted_line_matches("Unsupported transform: TransposeTransform(permutation=<its permutation>)",
                                "Unsupported transform: TransposeTransform(permutation=(1, 0))")
  assert not predicted_line_matches("Unsupported transform: ReshapeTransform(shape=<its shape>)",
                                    "Unsupported transform: TransposeTransform(permutation=(1, 0))")
  assert not predicted_line_matches("Unsupported transform: <ReshapeTransform(...)>",
                                    "Unsupported transform: ReshapeTransform(shape=(16, 8))")
  assert predicted_line_matches("Mesh type <class 'jax._src.pallas.mosaic_gpu.core.WarpMesh'> not supported.",
                                "Mesh type <class 'jax._src.pallas.mosaic_gpu.core.WarpMesh'> not supported.")
  assert not predicted_line_matches("Mesh type <class 'jax._src.pallas.mosaic_gpu.core.WarpMesh'> not supported.",
                                    "Mesh type <class 'jax._src.pallas.mosaic_gpu.core.Mesh'> not supported.")
  semantics = "lowering semantics LoweringSemantics.<Lane or Warpgroup> and"
  assert predicted_line_matches(semantics, "lowering semantics LoweringSemantics.Warpgroup and")
  assert not predicted_line_matches(semantics, "lowering semantics LoweringSemantics.Warp and")
  assert predicted_line_matches("Cannot lower jaxpr with effects: {<the thread body's effects, inline_mgpu_p's among them>}",
                                "Cannot lower jaxpr with effects: {<jax._src.pallas.mosaic_gpu.core.MemoryEffect "
                                "object at 0x7f099b808350>, <jax._src.callback.IOEffect object at 0x7f099c523bd0>}")
  assert not predicted_line_matches("Cannot lower jaxpr with effects: {<the thread body's effects, inline_mgpu_p's among them>}",
                                    "Cannot lower jaxpr with effects: {OrderedIOEffect}")
  assert predicted_line_matches("inline_mgpu_p does not support discharge.", "inline_mgpu_p does not support discharge.")
  assert not predicted_line_matches("No state discharge rule implemented for primitive: copy_gmem_to_smem",
                                    "No state discharge rule implemented for primitive: copy_smem_to_gmem")
