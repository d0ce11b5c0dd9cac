#!/usr/bin/env python3
"""Runs every oracle fixture (at most JOBS at a time, each in its own process
with a timeout) and writes the results to one JSON file.

    python record.py [--out build-oracle/oracle-results.json] [--jobs 2] [FIXTURE...]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
DEFAULT_OUT = os.path.join(ROOT, "build-oracle", "oracle-results.json")
TIMEOUT_S = 180


def fixture_paths():
  return sorted(os.path.join(FIXTURES, name) for name in os.listdir(FIXTURES)
                if name.endswith(".py") and not name.startswith("_"))


def run_one(path, python=sys.executable):
  """The fixture's run, with the result of its `also=` run (if it declares
  one) under "also"."""
  result = _run(path, python, None)
  header = result.get("header") or {}
  if header.get("also") and result["outcome"] != "harness-error":
    result["also"] = _run(path, python, header["also"])
  return result


def _run(path, python, choice):
  env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1",
             XLA_FLAGS="--xla_force_host_platform_device_count=1", TF_CPP_MIN_LOG_LEVEL="3")
  env.pop("ORACLE_COMPILE", None)
  env.pop("ORACLE_CHOICE", None)
  if choice:
    env["ORACLE_CHOICE"] = choice
  try:
    proc = subprocess.run([python, os.path.join(HERE, "oracle_run.py"), path], capture_output=True,
                          text=True, timeout=TIMEOUT_S, env=env, cwd=FIXTURES)
  except subprocess.TimeoutExpired:
    return {"fixture": path, "outcome": "harness-error", "message": f"timed out after {TIMEOUT_S}s"}
  lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
  if proc.returncode != 0 or not lines:
    return {"fixture": path, "outcome": "harness-error",
            "message": (proc.stderr or proc.stdout)[-2000:]}
  return json.loads(lines[-1])


def record(paths=None, out=DEFAULT_OUT, jobs=2, python=sys.executable):
  paths = paths or fixture_paths()
  with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    results = list(pool.map(lambda p: run_one(p, python), paths))
  os.makedirs(os.path.dirname(out), exist_ok=True)
  with open(out, "w", encoding="utf-8") as f:
    json.dump({"results": results}, f, indent=1, sort_keys=True)
  return results


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--out", default=DEFAULT_OUT)
  parser.add_argument("--jobs", type=int, default=2)
  parser.add_argument("fixtures", nargs="*")
  args = parser.parse_args()
  results = record([os.path.abspath(p) for p in args.fixtures] or None, args.out, args.jobs)
  for r in results:
    blame = r.get("blame") or {}
    print(f"{os.path.basename(r['fixture']):45s} {r['outcome']:6s} {r.get('errorType', '')} "
          f"{os.path.basename(blame.get('file') or '')}:{blame.get('line')} {r.get('message', '')[:90]}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
