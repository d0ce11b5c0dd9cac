#!/usr/bin/env python3
"""JAX's own Pallas GPU tests as a second oracle for pallas-lsp's path matrix.

    python harness.py --jax-repo DIR [--bin pallas-lsp] [--python PY]
                      [--per-method N] [--timeout S] [--out report.json] [--reuse report.json]
                      [--file tests/pallas/gpu_pallas_interpret_test.py ...]

DIR is a checkout of jax-ml/jax at the tag matching the installed JAX
(jax-v0.10.2); CI has no copy of it, so this runs by hand, outside the suite.

For every test method of each file it
1. predicts, from ``pallas-lsp check --format json``'s path matrix, whether
   the launches written in the method's body run on each path: "no" when one
   launch's path says no, "yes" when all say yes, else "may";
2. runs the test with real JAX on CPU three ways (worker.py): as written,
   with ``interpret=True`` forced, with GPU interpret mode forced;
3. compares. A test that raised counts as "no" (the path cannot run it); a
   test that passed, or failed on its own assertion after running, as "yes"
   (a test expecting one error that got another counts as "no", and so does
   a test that asserts a raise and passed: JAX raised there).
   Skipped tests (the test's own choice), errors raised outside any launch
   (no frame of Pallas or Mosaic GPU in the traceback: the path was not
   tried) and methods with no launch written in their body are listed
   apart, not counted.

Where both say "no" it also checks whether JAX raised the predicted error.
``--reuse REPORT`` takes JAX's outcomes from an earlier report (they do not
depend on pallas-lsp) and runs only the tests it lacks. The report lists
every disagreement with JAX's error and sorts them into groups, so each can
be explained (docs/analysis.md, "Launch wrappers" and "JAX's own tests").
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import subprocess
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DEFAULT_FILES = [
    "tests/pallas/gpu_pallas_interpret_test.py",
    "tests/pallas/mosaic_gpu_test.py",
]
# The path-matrix column each way of running reads. "as-written" takes the
# path the launch itself selects; compiled cannot run on a CPU and is skipped.
MODE_COLUMN = {"interpret": "interpret", "gpu-interpret": "gpu_interpret"}
SELECTS_COLUMN = {"interpret": "interpret", "interpret_gpu": "gpu_interpret"}
MODES = ["as-written", "interpret", "gpu-interpret"]


def test_methods(source: str) -> dict[str, tuple[int, int]]:
  """Maps "Class.method" to the method's 0-based line range."""
  out = {}
  for node in ast.parse(source).body:
    if isinstance(node, ast.ClassDef):
      for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
          out[f"{node.name}.{item.name}"] = (item.lineno - 1, item.end_lineno - 1)
  return out


def _expects_raise(node: ast.AST) -> bool:
  """Whether a test method asserts that something it runs raises: `with
  self.assertRaises*(...)` / `pytest.raises(...)`, or `try: ... except: ...`
  with an `else:` that fails the test."""
  for n in ast.walk(node):
    if isinstance(n, ast.With):
      for item in n.items:
        call = item.context_expr
        if isinstance(call, ast.Call):
          f = call.func
          name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
          if name.startswith("assertRaises") or name == "raises":
            return True
    if isinstance(n, ast.Try) and n.handlers and n.orelse:
      return True
  return False


def methods_expecting_raise(source: str) -> set[str]:
  out = set()
  for node in ast.parse(source).body:
    if isinstance(node, ast.ClassDef):
      for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name.startswith("test") and _expects_raise(item):
          out.add(f"{node.name}.{item.name}")
  return out


def launches_of(binary: str, path: Path) -> list[dict]:
  proc = subprocess.run([binary, "check", "--format", "json", str(path)],
                        capture_output=True, text=True, timeout=600)
  return json.loads(proc.stdout)["launches"]


def predict(launches: list[dict], column_of) -> str | None:
  verdicts = []
  for launch in launches:
    column = column_of(launch)
    if column is None:
      return None
    verdicts.append(launch["paths"][column]["runs"])
  if not verdicts:
    return None
  if "no" in verdicts:
    return "no"
  return "yes" if all(v == "yes" for v in verdicts) else "may"


def predicted_error(launches: list[dict], column_of) -> str:
  """The error the first launch that cannot run on the path is predicted to
  raise ("" when none says no)."""
  for launch in launches:
    column = column_of(launch)
    if column is not None and launch["paths"][column]["runs"] == "no":
      return launch["paths"][column].get("error", "")
  return ""


def same_error(predicted: str, jax_error: str) -> bool:
  """Whether JAX raised the predicted error: the same exception class and
  the predicted message's first words (the primitive it names)."""
  if not predicted or not jax_error:
    return False
  ptype, _, pmsg = predicted.partition(": ")
  jtype, _, jmsg = jax_error.partition(": ")
  if ptype != jtype:
    return False
  key = pmsg.split("{")[0][:60].strip()
  return key in jmsg or pmsg[:40] in jmsg


# Why JAX's run-time failed where the analysis predicted "yes": groups of
# JAX's messages and what each means. The analysis does not model these
# failures of JAX's interpreters (docs/analysis.md, "JAX's own tests as a
# second oracle"); each is a miss of the analysis, and stays counted.
DISAGREEMENT_GROUPS = [
    ("Barrier remains allocated", "GPU interpret mode's barrier bookkeeping (a barrier not released at the kernel's end)"),
    ("Higher-order primitive", "GPU interpret mode's fallback re-binds a primitive carrying a jaxpr (core_map, checkpoint nested in the kernel)"),
    ("predicate not supported", "GPU interpret mode's TMA copy callback: predicated copies"),
    ("reduction_op not supported", "GPU interpret mode's TMA copy callback: reduction_op="),
    ("nan + ", "GPU interpret mode's NaN-filled uninitialised memory meets a cluster barrier / semaphore"),
    ("Unsupported transform", "GPU interpret mode's ref transforms (transposed / aliased views)"),
    ("WarpMesh", "the HLO interpreter rejects a warp mesh (plgpu.WarpMesh core_map)"),
    ("unbound axis name", "the HLO interpreter: an axis name the test's mesh binds"),
    ("No state discharge rule", "a discharge failure the walk did not see (the kernel is reached through a value it does not follow)"),
    ("AssertionError:", "a bare assert in GPU interpret mode's callbacks"),
]


def disagreement_group(row: dict) -> str:
  if row["predicted"] == "no":
    return "predicted no, the test never runs the kernel on that path (traced only, or an earlier error it expects)"
  if row["outcome"] in ("pass", "fail"):
    return "the test asserts an error JAX raised on this path, one the analysis does not model"
  for needle, why in DISAGREEMENT_GROUPS:
    if needle in row["error"]:
      return why
  return "other: " + row["error"][:80]


def as_written_column(launch: dict):
  selects = launch.get("selects") or []
  columns = {SELECTS_COLUMN.get(s) for s in selects}
  return columns.pop() if len(columns) == 1 and None not in columns else None


def method_of(test_id: str, methods: dict[str, tuple[int, int]]) -> str | None:
  """Parameterized tests are named after their method plus a suffix; classes
  that inherit the method (the WG and arch variants) name the base class."""
  cls, name = test_id.split(".", 1)
  best = None
  for key in methods:
    mcls, mname = key.split(".", 1)
    if name.startswith(mname) and (mcls == cls) and (best is None or len(mname) > len(best[1])):
      best = (key, mname)
  return best[0] if best else None


def run_worker(python: str, mode: str, test_file: Path, ids: list[str], timeout: int) -> dict:
  """Runs ids in one process, reading each test's line as it comes; a crash
  of that process, or a test that gives no line within `timeout` + 60 s
  (a GPU-interpret kernel whose simulated threads deadlock blocks in XLA,
  where the worker's own alarm never fires), marks the test it was on and
  the rest continue in a new process."""
  results: dict[str, dict] = {}
  pending = list(ids)
  while pending:
    cmd = [python, str(HERE / "worker.py"), mode, str(test_file), "--timeout", str(timeout), *pending]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=test_file.parent)
    lines: "queue.Queue[str | None]" = queue.Queue()

    def pump(stream=proc.stdout, sink=lines):
      for line in stream:
        sink.put(line)
      sink.put(None)

    threading.Thread(target=pump, daemon=True).start()
    hung = False
    while True:
      try:
        line = lines.get(timeout=timeout + 60)
      except queue.Empty:
        hung = True
        proc.kill()
        break
      if line is None:
        break
      if line.startswith("{"):
        row = json.loads(line)
        results[row["id"]] = row
    proc.wait()
    rest = [t for t in pending if t not in results]
    if rest:
      results[rest[0]] = ({"id": rest[0], "outcome": "timeout", "type": "",
                           "message": f"no result in {timeout + 60} s (hung)"} if hung else
                          {"id": rest[0], "outcome": "error", "type": "WorkerDied",
                           "message": "the test process ended without a result"})
      rest = rest[1:]
    pending = rest
  return results


def list_tests(python: str, test_file: Path) -> list[str]:
  proc = subprocess.run([python, str(HERE / "worker.py"), "as-written", str(test_file), "--list"],
                        capture_output=True, text=True, timeout=600, cwd=test_file.parent)
  return [json.loads(l)["id"] for l in proc.stdout.splitlines() if l.startswith("{")]


def observed(row: dict, expects_raise: bool = False) -> str | None:
  """A test written with assertRaisesRegex that fails because JAX raised a
  DIFFERENT error than the test expects ('"A" does not match "B"') saw the
  kernel raise B on this path: that path cannot run it. A test that asserts
  a raise and passed saw JAX raise: that path did not run the kernel either."""
  if row["outcome"] == "fail" and '" does not match "' in row["message"]:
    return "no"
  if row["outcome"] == "pass" and expects_raise:
    return "no"
  if row["outcome"] == "error" and row.get("inLaunch") is False:
    return None  # raised outside any launch: the path was not tried
  return {"pass": "yes", "fail": "yes", "error": "no", "timeout": None, "skip": None}[row["outcome"]]


def reused_results(report: Path | None) -> dict[tuple[str, str], dict]:
  """JAX's outcomes recorded by an earlier run of this harness (--reuse):
  they do not depend on pallas-lsp, so the predictions can be re-compared
  without running JAX again."""
  if report is None:
    return {}
  out = {}
  for r in json.loads(report.read_text())["rows"]:
    if r["mode"] == "-":
      continue
    etype, _, msg = r["error"].partition(": ")
    row = {"id": r["test"], "outcome": r["outcome"], "type": etype, "message": msg}
    if "inLaunch" in r:
      row["inLaunch"] = r["inLaunch"]
    out[(r["test"], r["mode"])] = row
  return out


def main() -> int:
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--jax-repo", required=True, type=Path)
  ap.add_argument("--bin", default=str(ROOT / "build/server/pallas-lsp"))
  ap.add_argument("--python", default=str(ROOT / ".venv/bin/python"))
  ap.add_argument("--file", action="append", dest="files")
  ap.add_argument("--per-method", type=int, default=1,
                  help="parameterized instances run per method (0: all)")
  ap.add_argument("--timeout", type=int, default=120)
  ap.add_argument("--mode", action="append", dest="modes", choices=MODES,
                  help="ways of running (default: all three)")
  ap.add_argument("--out", type=Path, default=Path("jax-tests-oracle.json"))
  ap.add_argument("--reuse", type=Path,
                  help="an earlier report: JAX's outcomes recorded there are reused, "
                       "only tests missing from it run")
  args = ap.parse_args()
  reused = reused_results(args.reuse)

  rows = []
  for rel in args.files or DEFAULT_FILES:
    test_file = args.jax_repo / rel
    methods = test_methods(test_file.read_text())
    raising = methods_expecting_raise(test_file.read_text())
    by_method: dict[str, list[dict]] = defaultdict(list)
    for launch in launches_of(args.bin, test_file):
      line = launch["range"]["start"]["line"]
      for key, (lo, hi) in methods.items():
        if lo <= line <= hi:
          by_method[key].append(launch)
    chosen: list[str] = []
    unmapped: dict[str, bool] = {}
    seen = Counter()
    for tid in list_tests(args.python, test_file):
      key = method_of(tid, methods)
      if key is None or key not in by_method:
        # No launch written in the method: nothing to compare (counted apart).
        unmapped[key or tid] = True
        continue
      seen[key] += 1
      if args.per_method == 0 or seen[key] <= args.per_method:
        chosen.append(tid)
    print(f"{rel}: {len(chosen)} tests run; {len(unmapped)} methods without a launch in their body",
          file=sys.stderr)
    for key in unmapped:
      rows.append({"file": rel, "test": key, "method": key, "mode": "-", "predicted": None,
                   "observed": "-", "outcome": "not run", "error": ""})
    for mode in args.modes or MODES:
      results = {tid: reused[(tid, mode)] for tid in chosen if (tid, mode) in reused}
      todo = [tid for tid in chosen if tid not in results]
      if todo:
        results.update(run_worker(args.python, mode, test_file, todo, args.timeout))
      for tid in chosen:
        key = method_of(tid, methods)
        column_of = as_written_column if mode == "as-written" else (lambda _l, m=mode: MODE_COLUMN[m])
        row = results[tid]
        launches = by_method.get(key, [])
        rows.append({"file": rel, "test": tid, "method": key, "mode": mode,
                     "predicted": predict(launches, column_of),
                     "predictedError": predicted_error(launches, column_of),
                     "observed": observed(row, key in raising), "outcome": row["outcome"],
                     "error": f"{row['type']}: {row['message']}" if row["type"] else ""})
        if "inLaunch" in row:
          rows[-1]["inLaunch"] = row["inLaunch"]
      print(f"  {mode}: done", file=sys.stderr)

  table = Counter()
  for r in rows:
    if r["observed"] is None:
      why = "error outside any launch" if r["outcome"] == "error" else r["outcome"]
      table[(r["file"], r["mode"], "not counted: " + why)] += 1
    elif r["predicted"] is None:
      table[(r["file"], r["mode"], "not counted: no launch in the method")] += 1
    elif r["predicted"] == "may":
      table[(r["file"], r["mode"], "may")] += 1
    elif r["predicted"] == r["observed"]:
      table[(r["file"], r["mode"], "agree")] += 1
    else:
      table[(r["file"], r["mode"], f"DISAGREE predicted {r['predicted']}")] += 1
  args.out.write_text(json.dumps({"rows": rows}, indent=1))
  agree = sum(v for k, v in table.items() if k[2] == "agree")
  counted = sum(v for k, v in table.items() if k[2] == "agree" or k[2].startswith("DISAGREE"))
  for k in sorted(table):
    print(f"{k[0]:45} {k[1]:14} {k[2]:45} {table[k]}")
  print(f"agreement: {agree}/{counted} (test, path) pairs")
  # Where both say "no": did JAX raise the predicted error, or fail first on
  # something else (the verdict agrees, the reason does not)?
  reasons = Counter()
  for r in rows:
    if r["observed"] == "no" and r["predicted"] == "no":
      reasons["same error" if same_error(r["predictedError"], r["error"]) else
              "JAX failed first on another error"] += 1
  for k, v in sorted(reasons.items()):
    print(f"  agree on no: {k}: {v}")
  groups = Counter()
  for r in rows:
    if r["observed"] is not None and r["predicted"] in ("yes", "no") and r["predicted"] != r["observed"]:
      groups[(r["mode"], disagreement_group(r))] += 1
      print(f"DISAGREE {r['mode']:14} {r['test']}: predicted {r['predicted']}, JAX {r['outcome']} {r['error']}")
  print("disagreement groups:")
  for (mode, why), v in sorted(groups.items(), key=lambda kv: -kv[1]):
    print(f"  {v:4} {mode:14} {why}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
