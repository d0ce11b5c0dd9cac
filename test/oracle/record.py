#!/usr/bin/env python3
"""Runs every oracle fixture (at most JOBS at a time, each in a process of
its own, forked from a server that imported JAX once, with a timeout) and
writes the results to one JSON file.

    python record.py [--out build-oracle/oracle-results.json] [--jobs 2] [FIXTURE...]
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
DEFAULT_OUT = os.path.join(ROOT, "build-oracle", "oracle-results.json")
TIMEOUT_S = 300  # one fixture: its run, its also= run and its forced paths


def fixture_paths():
  return sorted(os.path.join(FIXTURES, name) for name in os.listdir(FIXTURES)
                if name.endswith(".py") and not name.startswith("_"))


def _env():
  env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1",
             XLA_FLAGS="--xla_force_host_platform_device_count=1", TF_CPP_MIN_LOG_LEVEL="3")
  env.pop("ORACLE_COMPILE", None)
  env.pop("ORACLE_CHOICE", None)
  return env


class Server:
  """One `oracle_run.py --serve` process: JAX imported once, each fixture
  run in a child forked from it (its as-written run, its also= run and its
  forced paths, all in that child)."""

  def __init__(self, python):
    self.log = tempfile.TemporaryFile(mode="w+")
    self.proc = subprocess.Popen([python, os.path.join(HERE, "oracle_run.py"), "--serve", str(TIMEOUT_S)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                 text=True, env=_env(), cwd=FIXTURES)

  def run(self, path):
    try:
      self.proc.stdin.write(path + "\n")
      self.proc.stdin.flush()
      line = self.proc.stdout.readline()
    except (BrokenPipeError, OSError):
      line = ""
    if not line:
      self.proc.wait()
      self.log.seek(0)
      return {"fixture": path, "outcome": "harness-error", "message": self.log.read()[-2000:]}
    return json.loads(line)

  def close(self):
    try:
      self.proc.stdin.close()
    except OSError:
      pass
    self.proc.wait()
    self.log.close()


def record(paths=None, out=DEFAULT_OUT, jobs=2, python=sys.executable):
  paths = paths or fixture_paths()
  pending = queue.Queue()
  for i, p in enumerate(paths):
    pending.put((i, p))
  results = [None] * len(paths)

  def work():
    server = Server(python)
    try:
      while True:
        try:
          i, p = pending.get_nowait()
        except queue.Empty:
          return
        results[i] = server.run(p)
        if results[i]["outcome"] == "harness-error" and server.proc.poll() is not None:
          server = Server(python)  # the server itself died: a fresh one for the rest
    finally:
      server.close()

  threads = [threading.Thread(target=work) for _ in range(max(1, min(jobs, len(paths))))]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
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
