#!/usr/bin/env python3
"""Mechanical mutation testing (issue 36): mutants nobody hand-picks.

Every C++ source of the product (analysis/, server/, protocol/, gpu/) is
scanned for mutation sites of a few kinds, each a one-token change on one
line:

* relational: `==` <-> `!=`, `<` -> `<=`, `<=` -> `<`, `>` -> `>=`, `>=` -> `>`
* logical: `&&` <-> `||`, `!cond` in an `if (...)` -> `cond`
* constant: an integer literal n -> n + 1 (0 -> 1, 1 -> 2, ...), `true` <-> `false`
* arithmetic: ` + ` <-> ` - `
* statement: a line that is exactly `return;`, `continue;`, `break;` or a
  call statement `name(...);` is removed

Comments, strings, preprocessor lines and `#if PALLAS_LSP_MUTANT` blocks
are skipped. A seeded random sample of them (`--sample`, default 100) is
applied one at a time to the working tree, built into build-mutant-gen/
(its own tree: only the mutated file is recompiled), and the fast C++ test
binaries, the evaluator's cases, the FileCheck tests of test/mlir and the
quick end-to-end suites of the binary (E2E_SUITES, with the oracle's
agreement half over recorded truth; the LSP and knowledge suites only for
a mutant in the code they check) are run, each linked
just before it runs; one the mutant does not reach is not relinked and not
rerun. A
mutant that does not compile is "stillborn" and not counted; one that
makes a test fail or time out is "killed"; else it "survived". The report
keeps the sample with each site's line text, so --resume (and --rejudge,
which reruns the survivors against today's tests) finds the same mutants on
a later commit; one whose line is gone is "gone" and not counted. The source
is restored after each mutant, and on Ctrl-C. The report is written after
every mutant, so an interrupted run goes on with --resume.

    python test/mutation/generate.py [--sample N] [--seed S] [--list] [--report FILE] [--resume]
    python test/mutation/generate.py --site analysis/lib/X.cpp:167 --report /tmp/r.json

Not part of the default suite (it rebuilds once per mutant: about a minute
each on CI's machine). docs/testing.md has the last report.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build-mutant-gen")
PYTHON = os.environ.get("PALLAS_LSP_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
SOURCE_DIRS = ("analysis", "server", "protocol", "gpu")
# The fast suites: the unit and golden tests of every library, and the
# evaluator's cases (analysis/eval).
TEST_BINARIES = (
    "test/analysis/analysis_tests",
    "test/discharge/discharge_tests",
    "test/check/pallas_check_tests",
    "test/server/pallas_server_tests",
    "test/server/pallas_scheduler_tests",
    "test/protocol/pallas_protocol_tests",
    "test/rewrite/pallas_rewrite_tests",
    "test/knowledge/knowledge_tests",
    "test/mosaic/mosaic_rules_tests",
    "test/mosaic/launch_target_tests",
    "test/hardening/hardening_tests",
    "test/gpu/pallas_gpu_tests",
)
# The FileCheck tests of the `pallas` dialect and its passes (test/mlir, by
# lit): the only tests of the earlier kernel walk, which `.mlir` input runs.
LIT_TARGETS = ("pallas-opt", "pallas-lsp")
# Then the quick suites that run the pallas-lsp binary end to end (the CLI,
# the golden modules, the discharge and rewrite checks with real JAX, and the
# oracle's agreement half: `check` over every fixture against the truth JAX
# recorded, which ORACLE_RESULTS keeps so that no mutant re-runs JAX), as
# scripts/run-tests.sh runs them.
E2E_SUITES = ("25-check", "30-analysis", "45-discharge", "46-rewrite", "40-oracle")
# The language server's suite (20-lsp, about three minutes) and the knowledge
# suite run only for a mutant in the code they check.
SUITES_FOR_DIR = {"server/": ("20-lsp",), "protocol/": ("20-lsp",),
                  "analysis/knowledge/": ("41-knowledge",)}
ORACLE_RESULTS = os.path.join(BUILD, "oracle-results.json")
TARGETS = (tuple(os.path.basename(b) for b in TEST_BINARIES) + ("py-eval",) + LIT_TARGETS +
           ("rewrite_tool",))
LLVM_BIN = "/usr/lib/llvm-22/bin"
TEST_TIMEOUT_S = 300

_SKIP_DIRS = ("/test/", "/third_party/", "/build")

_REPLACEMENTS = [
    ("relational", re.compile(r"(?<=[\w\)\]]) == (?=[\w\(\"'!-])"), " != "),
    ("relational", re.compile(r"(?<=[\w\)\]]) != (?=[\w\(\"'!-])"), " == "),
    ("relational", re.compile(r"(?<=[\w\)\]]) < (?=[\w\(])"), " <= "),
    ("relational", re.compile(r"(?<=[\w\)\]]) <= (?=[\w\(])"), " < "),
    ("relational", re.compile(r"(?<=[\w\)\]]) > (?=[\w\(])"), " >= "),
    ("relational", re.compile(r"(?<=[\w\)\]]) >= (?=[\w\(])"), " > "),
    ("logical", re.compile(r" && "), " || "),
    ("logical", re.compile(r" \|\| "), " && "),
    ("logical", re.compile(r"(?<=if \()!(?=[\w\(])"), ""),
    ("constant", re.compile(r"\btrue\b"), "false"),
    ("constant", re.compile(r"\bfalse\b"), "true"),
    ("constant", re.compile(r"(?<![\w.])(\d+)(?![\w.'])"), None),  # n -> n + 1
    ("arithmetic", re.compile(r"(?<=[\w\)\]]) \+ (?=[\w\(])"), " - "),
    ("arithmetic", re.compile(r"(?<=[\w\)\]]) - (?=[\w\(])"), " + "),
]
_DROPPABLE = re.compile(r"^\s*(return;|continue;|break;|[A-Za-z_][\w:.>-]*\([^;]*\);)\s*$")


def _sources():
  for d in SOURCE_DIRS:
    for base, _dirs, files in os.walk(os.path.join(ROOT, d)):
      rel = "/" + os.path.relpath(base, ROOT) + "/"
      if any(s in rel for s in _SKIP_DIRS):
        continue
      for f in sorted(files):
        if f.endswith(".cpp"):
          yield os.path.join(base, f)


def _code_part(line):
  """The line up to a // comment, with string and char literals blanked
  (same length), so sites are never inside them."""
  out, quote, i = [], None, 0
  while i < len(line):
    c = line[i]
    if quote:
      if c == "\\":
        out.append("__")
        i += 2
        continue
      out.append(c if c == quote else "_")
      if c == quote:
        quote = None
    elif c in "\"'":
      quote = c
      out.append(c)
    elif line.startswith("//", i):
      break
    else:
      out.append(c)
    i += 1
  return "".join(out)


def sites():
  """Every mutation site: (file, line number, kind, column, old, new)."""
  found = []
  for path in _sources():
    with open(path, encoding="utf-8") as f:
      lines = f.read().split("\n")
    in_block_comment, in_mutant = False, 0
    for n, line in enumerate(lines, 1):
      stripped = line.strip()
      if in_block_comment:
        in_block_comment = "*/" not in stripped
        continue
      if stripped.startswith("/*"):
        in_block_comment = "*/" not in stripped
        continue
      if stripped.startswith("#"):
        if "PALLAS_LSP_MUTANT" in stripped:
          in_mutant += 1
        elif stripped.startswith("#endif") and in_mutant:
          in_mutant -= 1
        continue
      if in_mutant or not stripped or stripped.startswith("//"):
        continue
      code = _code_part(line)
      for kind, pattern, new in _REPLACEMENTS:
        for m in pattern.finditer(code):
          old = m.group(0)
          repl = str(int(old) + 1) if new is None else new
          found.append((path, n, kind, m.start(), old, repl))
      if _DROPPABLE.match(code) and not stripped.startswith(("return ", "case ")):
        found.append((path, n, "statement", 0, line, ""))
  return found


def apply(site):
  path, n, kind, col, old, new = site
  with open(path, encoding="utf-8") as f:
    original = f.read()
  lines = original.split("\n")
  line = lines[n - 1]
  if kind == "statement":
    lines[n - 1] = ""
  else:
    assert line[col:col + len(old)] == old, (path, n, line, old)
    lines[n - 1] = line[:col] + new + line[col + len(old):]
  with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines))
  return original


def _configure():
  if not os.path.exists(os.path.join(BUILD, "build.ninja")):
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "build.sh"), BUILD], check=True,
                   env={**os.environ, "PALLAS_LSP_TARGETS": " ".join(TARGETS)})


def _build(targets=TARGETS):
  r = subprocess.run(["cmake", "--build", BUILD, "-j", os.environ.get("PALLAS_LSP_JOBS", "2"),
                      "--target", *targets], capture_output=True, text=True)
  return r.returncode == 0


def _executables():
  """(target, path) of every test executable, in the order they run."""
  pairs = [(os.path.basename(b), os.path.join(BUILD, b)) for b in TEST_BINARIES]
  pairs.append(("py-eval", os.path.join(BUILD, "analysis", "tools", "py-eval", "py-eval")))
  pairs.append(("pallas-opt", os.path.join(BUILD, "analysis", "tools", "pallas-opt", "pallas-opt")))
  pairs.append(("pallas-lsp", os.path.join(BUILD, "server", "pallas-lsp")))
  return pairs


def _stamp(path):
  try:
    st = os.stat(path)
    return (st.st_mtime_ns, st.st_size)
  except FileNotFoundError:
    return None


def _run_one(target, exe):
  """True when the tests of this executable pass."""
  if target == "py-eval":
    cmd = [PYTHON, os.path.join(ROOT, "test", "eval", "run_cases.py"), exe]
  elif target == "pallas-lsp":
    cmd = [os.path.join(LLVM_BIN, "lit"), "-q", os.path.join(ROOT, "test", "mlir"),
           "-Dpallas_opt=" + os.path.join(BUILD, "analysis", "tools", "pallas-opt", "pallas-opt"),
           "-Dpallas_lsp=" + exe, "-Dllvm_bin=" + LLVM_BIN,
           "-Dexec_root=" + os.path.join(BUILD, "test-mlir")]
  else:
    cmd = [exe, "--gtest_brief=1"]
  try:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TEST_TIMEOUT_S, cwd=ROOT)
  except subprocess.TimeoutExpired:
    return False
  return r.returncode == 0


def _tests(baseline=False, mutated=None):
  """The first failing test executable's name, or None when all pass. Each
  executable is built just before it runs, so a mutant that the first one
  kills costs one link, not thirteen. An executable the mutant left
  byte-for-byte unbuilt (its link inputs did not change) passed on the
  unmutated tree and is not run again. Returns "stillborn" when a build
  fails."""
  opt_changed = False
  for target, exe in _executables():
    before = _stamp(exe)
    if not _build((target,)):
      return "stillborn"
    changed = baseline or before is None or _stamp(exe) != before
    if target == "pallas-opt":
      opt_changed = changed  # its tests run with pallas-lsp's
      continue
    if not changed and not (target == "pallas-lsp" and opt_changed):
      continue
    if not _run_one(target, exe):
      return "lit (test/mlir)" if target == "pallas-lsp" else target
    if target == "pallas-lsp":
      if not _build(("rewrite_tool",)):
        return "stillborn"
      extra = sorted({x for d, suites in SUITES_FOR_DIR.items()
                      if baseline or (mutated and mutated.startswith(d)) for x in suites})
      for suite in E2E_SUITES + tuple(extra):
        if not _run_suite(suite, exe):
          return suite
  return None


def _run_suite(name, lsp):
  env = dict(os.environ, PALLAS_LSP_ROOT=ROOT, PALLAS_LSP_BIN=lsp, PALLAS_LSP_PYTHON=PYTHON,
             ORACLE_REUSE="1", ORACLE_RESULTS=ORACLE_RESULTS)
  try:
    r = subprocess.run(["bash", os.path.join(ROOT, "test", "suites", name + ".sh")],
                       capture_output=True, text=True, timeout=TEST_TIMEOUT_S, cwd=ROOT, env=env)
  except subprocess.TimeoutExpired:
    return False
  return r.returncode == 0


def _site_record(site):
  path, n, kind, col, old, new = site
  with open(path, encoding="utf-8") as f:
    text = f.read().split("\n")[n - 1]
  return {"file": os.path.relpath(path, ROOT), "line": n, "kind": kind, "column": col,
          "old": old, "new": new, "text": text}


def relocate(record):
  """The site of a recorded mutant in today's tree: the line with the same
  text nearest to where it was (code above it may have grown or shrunk
  since the sample was drawn), or None when that line is gone. This lets a
  sample drawn on one commit be run, and re-judged, on a later one."""
  path = os.path.join(ROOT, record["file"])
  if not os.path.exists(path):
    return None
  with open(path, encoding="utf-8") as f:
    lines = f.read().split("\n")
  same = [i + 1 for i, line in enumerate(lines) if line == record["text"]]
  if not same:
    return None
  n = min(same, key=lambda i: abs(i - record["line"]))
  old = lines[n - 1] if record["kind"] == "statement" else record["old"]
  return (path, n, record["kind"], record["column"], old, record["new"])


def _write_report(path, site_count, sample_records, results):
  counted = [r for r in results if r["outcome"] not in ("stillborn", "gone")]
  killed = sum(r["outcome"] == "killed" for r in counted)
  summary = {"sites": site_count, "sampled": len(sample_records), "run": len(results),
             "stillborn": sum(r["outcome"] == "stillborn" for r in results),
             "gone": sum(r["outcome"] == "gone" for r in results), "killed": killed,
             "survived": len(counted) - killed,
             "killRate": round(killed / len(counted), 3) if counted else None}
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    json.dump({"summary": summary, "sample": sample_records, "mutants": results}, f, indent=1)
  return summary


def _judge(site):
  """Applies one mutant, runs the tests, restores the source: the result
  record of this mutant."""
  started = time.time()
  original = apply(site)
  try:
    by = _tests(mutated=os.path.relpath(site[0], ROOT))
  finally:
    with open(site[0], "w", encoding="utf-8") as f:
      f.write(original)
  outcome = "stillborn" if by == "stillborn" else ("killed" if by else "survived")
  return {"file": os.path.relpath(site[0], ROOT), "line": site[1], "kind": site[2],
          "old": site[4].strip(), "new": site[5], "outcome": outcome,
          "killedBy": by if outcome == "killed" else None,
          "seconds": round(time.time() - started)}


def _print_result(i, total, result):
  by = result["killedBy"]
  print(f"[{i}/{total}] {result['outcome']:9} {result['file']}:{result['line']} {result['kind']} "
        f"{result['old'][:60]!r} -> {result['new']!r}" + (f" ({by})" if by else ""), flush=True)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--sample", type=int, default=100)
  parser.add_argument("--seed", type=int, default=36)
  parser.add_argument("--list", action="store_true", help="print the sample and exit")
  parser.add_argument("--report", default=os.path.join(BUILD, "report.json"))
  parser.add_argument("--site", action="append", default=[], metavar="FILE:LINE",
                      help="run the mutants at this line instead of a sample (checks that a new "
                           "test kills a survivor); repeatable")
  parser.add_argument("--resume", action="store_true",
                      help="keep the mutants --report already has and run the rest of its sample "
                           "(located by line text in today's tree)")
  parser.add_argument("--rejudge", action="store_true",
                      help="with --resume: first run the report's survivors again against "
                           "today's tests")
  args = parser.parse_args(argv)

  everything = sites()
  previous = None
  if args.resume and os.path.exists(args.report):
    with open(args.report, encoding="utf-8") as f:
      previous = json.load(f)
  if args.site:
    wanted = {tuple(x.rsplit(":", 1)) for x in args.site}
    sample = [s for s in everything if (os.path.relpath(s[0], ROOT), str(s[1])) in wanted]
    records = [_site_record(s) for s in sample]
    print(f"{len(sample)} mutants at {', '.join(args.site)}", flush=True)
  elif previous and "sample" in previous:
    # The sample the report was drawn with, wherever its lines are today.
    records = previous["sample"]
    sample = [relocate(r) for r in records]
    print(f"the sample of {args.report}: {len(records)} mutants, "
          f"{sum(s is None for s in sample)} of whose lines are gone", flush=True)
  else:
    sample = random.Random(args.seed).sample(everything, min(args.sample, len(everything)))
    records = [_site_record(s) for s in sample]
    print(f"{len(everything)} mutation sites; sample of {len(sample)} (seed {args.seed})", flush=True)
  if args.list:
    for s in sample:
      if s is not None:
        print(f"{os.path.relpath(s[0], ROOT)}:{s[1]} {s[2]}: {s[4].strip()!r} -> {s[5]!r}")
    return 0

  # `kill` (SIGTERM) restores the source like Ctrl-C does.
  signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
  _configure()
  if _tests(baseline=True) is not None:
    print("the unmutated tree does not build or pass: fix that first", file=sys.stderr)
    return 2
  results = previous["mutants"][:len(sample)] if previous else []
  if previous:
    print(f"resuming after {len(results)} mutants of {args.report}", flush=True)
  try:
    if args.rejudge:
      for i, result in enumerate(results):
        if result["outcome"] != "survived":
          continue
        if sample[i] is None:  # its line changed since: that mutant is gone
          results[i] = dict(result, outcome="gone")
          _write_report(args.report, len(everything), records, results)
          continue
        again = _judge(sample[i])
        if again["outcome"] == "killed":
          results[i] = dict(again, rejudged=True)
        _write_report(args.report, len(everything), records, results)
        _print_result(i + 1, len(sample), results[i])
    for i in range(len(results), len(sample)):
      if sample[i] is None:
        gone = records[i]
        results.append({"file": gone["file"], "line": gone["line"], "kind": gone["kind"],
                        "old": gone["old"], "new": gone["new"], "outcome": "gone",
                        "killedBy": None, "seconds": 0})
      else:
        results.append(_judge(sample[i]))
      _write_report(args.report, len(everything), records, results)
      _print_result(i + 1, len(sample), results[-1])
  finally:
    _build()  # the tree as it was
    print(json.dumps(_write_report(args.report, len(everything), records, results)), flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
