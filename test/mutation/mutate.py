#!/usr/bin/env python3
"""Mutation testing: apply each mutant, run the narrowest suites that should
kill it, report which survive (issue 19). Run through test/mutation/run.sh.

Two kinds of mutant:
* knowledge: an edit of the bundled JAX knowledge table, written to a temp
  folder that PALLAS_LSP_KNOWLEDGE_DIR points the unmutated binary at
  (analysis/knowledge/lib/KnowledgeBase.cpp, bundledPath);
* source: a one-line change in the product guarded by
  `#if PALLAS_LSP_MUTANT == N`, compiled into build-mutant/ with
  -DPALLAS_LSP_MUTANT=N (CMakeLists.txt; only the files holding mutants are
  recompiled when N changes).

The suites are the narrowest ones that should kill each mutant, all parts
of the default suite (scripts/run-tests.sh): the oracle's agreement tests
(40-oracle, with ORACLE_REUSE=1: what JAX did does not depend on the
product, so it is recorded once) and `check --fix --unsafe-fixes` in
46-rewrite. A baseline (no mutant) must pass the same suites first, or
every mutant would look killed.

    python test/mutation/mutate.py [--only NAME ...] [--list]
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = os.environ.get("PALLAS_LSP_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
TABLE = os.path.join(ROOT, "analysis", "knowledge", "jax-0.10.2.json")
BUILD = os.path.join(ROOT, "build")
MUTANT_BUILD = os.path.join(ROOT, "build-mutant")
ORACLE_RESULTS = os.path.join(ROOT, "build-oracle", "oracle-results.json")

# ---- suites ------------------------------------------------------------------
ORACLE = ("40-oracle agreement", [PYTHON, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                  "test/oracle", "-m", "agreement"])
REWRITE_CHECK_FIX = ("46-rewrite check --fix", [PYTHON, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                                "test/rewrite/test_rewrite.py", "-k", "check_fix"])


# ---- knowledge mutants: functions editing the table in place ---------------------
def _prim(table, name):
  return next(p for p in table["primitives"].values() if p["name"] == name)


def predict_valueerror(t):
  for e in t["errorTemplates"].values():
    if e.get("exception") == "NotImplementedError":
      e["exception"] = "ValueError"
  for p in t["primitives"].values():
    if p["discharge"].get("exception") == "NotImplementedError":
      p["discharge"]["exception"] = "ValueError"


def empty_error_templates(t):
  for e in t["errorTemplates"].values():
    e["template"] = ""
  for p in t["primitives"].values():
    if "message" in p["discharge"]:
      p["discharge"]["message"] = ""


def drop_error_templates(t):
  t["errorTemplates"] = {}


def layout_cast_gets_cpu_lowering(t):
  _prim(t, "layout_cast")["cpuLowering"] = True


def inline_mgpu_discharge_none(t):
  _prim(t, "inline_mgpu_p")["discharge"] = {"status": "none"}


def reciprocal_gets_mosaic_rule(t):
  _prim(t, "reciprocal")["mosaicGpuLowering"] = ["LanexWarp", "LanexWarpgroup", "WarpgroupxWarp",
                                                 "WarpgroupxWarpgroup"]


def copy_gmem_to_smem_gpu_fallback(t):
  _prim(t, "copy_gmem_to_smem")["gpuInterpret"] = {"handling": "fallback", "fallbackOutcome": "missing-lowering",
                                                    "message": None}


def broadcast_to_guard_dropped(t):
  t["apis"]["pl.broadcast_to"].pop("returnsBeforeBindIf")


MUTANTS = [
    # (name, kind, knowledge edit or source mutant number, suites, what it breaks)
    ("predict-valueerror", "knowledge", predict_valueerror, [ORACLE],
     "findings predict ValueError where JAX raises NotImplementedError"),
    ("empty-error-templates", "knowledge", empty_error_templates, [ORACLE],
     "every error template and discharge message empty"),
    ("drop-error-templates", "knowledge", drop_error_templates, [ORACLE],
     "no error templates (the built-in fallback texts)"),
    ("layout-cast-cpu-lowering", "knowledge", layout_cast_gets_cpu_lowering, [ORACLE],
     "layout_cast said to have a CPU lowering"),
    ("inline-mgpu-no-discharge-rule", "knowledge", inline_mgpu_discharge_none, [ORACLE],
     "inline_mgpu_p said to have no discharge rule (instead of one that raises)"),
    ("reciprocal-mosaic-rule", "knowledge", reciprocal_gets_mosaic_rule, [ORACLE],
     "reciprocal said to have Mosaic GPU lowering rules"),
    ("copy-gmem-to-smem-no-gpu-arm", "knowledge", copy_gmem_to_smem_gpu_fallback, [ORACLE],
     "the GPU interpreter said to have no arm for copy_gmem_to_smem"),
    ("broadcast-to-guard-dropped", "knowledge", broadcast_to_guard_dropped, [ORACLE],
     "pl.broadcast_to's early-return condition forgotten (a number to a literal shape only warns)"),
    ("drop-inline-rewrite-unsafe-fix", "source", 1, [REWRITE_CHECK_FIX],
     "check --fix --unsafe-fixes skips the inline_mgpu rewrite"),
    ("demote-pls001-pls002", "source", 2, [ORACLE], "every PLS001/PLS002 a warning"),
    ("drop-helper-findings", "source", 3, [ORACLE],
     "findings located in a helper file (outside the launch's file) dropped"),
    ("runtime-interpret-loses-compiled", "source", 4, [ORACLE],
     "a run-time interpret= value no longer considers the compiled path"),
    ("first-error-ignores-phases", "source", 5, [ORACLE],
     "the launch's first error chosen by program order alone"),
]


def run_suites(suites, env):
  """(killed, the suite that killed it or None, seconds)."""
  start = time.time()
  for name, argv in suites:
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
      return True, name, time.time() - start, proc.stdout[-1500:]
  return False, None, time.time() - start, ""


def base_env(binary):
  env = dict(os.environ, PALLAS_LSP_ROOT=ROOT, PALLAS_LSP_BIN=binary, PALLAS_LSP_PYTHON=PYTHON,
             ORACLE_REUSE="1", ORACLE_RESULTS=ORACLE_RESULTS, JAX_PLATFORMS="cpu",
             PALLAS_REWRITE_TOOL=os.path.join(BUILD, "test", "rewrite", "rewrite_tool"))
  env.pop("PALLAS_LSP_KNOWLEDGE_DIR", None)
  return env


def build(directory, mutant):
  jobs = os.environ.get("PALLAS_LSP_JOBS", "2")
  if not os.path.exists(os.path.join(directory, "build.ninja")):
    subprocess.run(["bash", "scripts/build.sh", directory, f"-DPALLAS_LSP_MUTANT={mutant}"], cwd=ROOT, check=True,
                   env=dict(os.environ, PALLAS_LSP_TARGETS="pallas-lsp"))
  subprocess.run(["cmake", "-B", directory, f"-DPALLAS_LSP_MUTANT={mutant}"], cwd=ROOT, check=True,
                 stdout=subprocess.DEVNULL)
  subprocess.run(["cmake", "--build", directory, "-j", jobs, "--target", "pallas-lsp"], cwd=ROOT, check=True,
                 stdout=subprocess.DEVNULL)


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--only", nargs="*", help="mutant names")
  parser.add_argument("--list", action="store_true")
  parser.add_argument("--report", default=os.path.join(MUTANT_BUILD, "mutation-report.json"))
  args = parser.parse_args()
  chosen = [m for m in MUTANTS if not args.only or m[0] in args.only]
  if args.list:
    for name, kind, _, suites, what in chosen:
      print(f"{name:34s} {kind:9s} {', '.join(s[0] for s in suites):24s} {what}")
    return 0
  binary = os.path.join(BUILD, "server", "pallas-lsp")
  for tool in (binary, os.path.join(BUILD, "test", "rewrite", "rewrite_tool")):
    if not os.path.exists(tool):
      print(f"{tool} is not built: run scripts/build.sh first", file=sys.stderr)
      return 2
  if not os.path.exists(ORACLE_RESULTS):  # what JAX did, recorded once
    print("recording the oracle fixtures with JAX (once) ...", flush=True)
    sys.path.insert(0, os.path.join(ROOT, "test", "oracle"))
    import record  # noqa: E402
    record.record(out=ORACLE_RESULTS, jobs=int(os.environ.get("ORACLE_JOBS", "2")), python=PYTHON)

  suites_used = {s[0]: s for m in chosen for s in m[3]}
  killed_any, by, _, out = run_suites(list(suites_used.values()), base_env(binary))
  if killed_any:
    print(f"baseline (no mutant) fails {by}: fix that first\n{out}", file=sys.stderr)
    return 2

  with open(TABLE, encoding="utf-8") as f:
    table = json.load(f)
  results = []
  for name, kind, what_to_do, suites, what in chosen:
    if kind == "knowledge":
      mutated = copy.deepcopy(table)
      what_to_do(mutated)
      assert mutated != table, f"{name} changes nothing"
      with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, os.path.basename(TABLE)), "w", encoding="utf-8") as f:
          json.dump(mutated, f)
        env = dict(base_env(binary), PALLAS_LSP_KNOWLEDGE_DIR=d)
        killed, by, secs, out = run_suites(suites, env)
    else:
      build(MUTANT_BUILD, what_to_do)
      killed, by, secs, out = run_suites(suites, base_env(os.path.join(MUTANT_BUILD, "server", "pallas-lsp")))
    verdict = f"killed by {by}" if killed else "SURVIVED"
    print(f"{name:34s} {kind:9s} {verdict:34s} {secs:6.1f}s  {what}", flush=True)
    results.append({"name": name, "kind": kind, "killed": killed, "by": by, "what": what,
                    "seconds": round(secs, 1), "output": out if killed else ""})
  if any(r["kind"] == "source" for r in results):
    build(MUTANT_BUILD, 0)  # leave build-mutant as the product
  n_killed = sum(r["killed"] for r in results)
  print(f"mutation score: {n_killed}/{len(results)} killed")
  os.makedirs(os.path.dirname(args.report), exist_ok=True)
  with open(args.report, "w", encoding="utf-8") as f:
    json.dump({"killed": n_killed, "total": len(results), "mutants": results}, f, indent=1)
  return 0 if n_killed == len(results) else 1


if __name__ == "__main__":
  sys.exit(main())
