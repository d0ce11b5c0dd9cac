#!/usr/bin/env python3
"""Checks the evaluator's expectations against CPython: runs each case of
test/eval/cases under this Python with a `reveal` that describes its value as
py-eval does (describe() in analysis/eval/lib/Modules.cpp), and compares with
the `# => EXPECTED` comments:

  - every value CPython reveals on a line must be one of the line's expected
    alternatives, unless one of them is not a concrete value (an Unknown's
    reason: then CPython may give anything);
  - a line CPython reveals on must carry an expectation (the evaluator must
    not think it unreachable), and an expected line CPython never reaches is
    reported unless every expected text is marked (may).

A file whose first line is `# entries` also runs its unittest.TestCase
classes (as absltest and the evaluator's entry points would).
Usage: cpython_check.py [CASE...]
"""
import os
import re
import subprocess
import sys

RUNNER = r'''
import builtins, os, runpy, sys, types, unittest, io

def describe(v):
    if v is None: return "None"
    if v is True: return "True"
    if v is False: return "False"
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return "%f" % v
    if isinstance(v, str): return '"' + v + '"'
    if isinstance(v, bytes): return 'b"' + v.decode("latin-1") + '"'
    if isinstance(v, tuple): return "a tuple"
    if isinstance(v, list): return "a list"
    if isinstance(v, dict): return "a dict"
    if isinstance(v, (set, frozenset)): return "a set"
    if isinstance(v, types.FunctionType): return "function " + v.__name__
    if isinstance(v, type): return "class " + v.__name__
    if isinstance(v, types.ModuleType): return "module " + v.__name__
    if isinstance(v, types.GeneratorType): return "a generator"
    if isinstance(v, types.MethodType): return "a bound method"
    return "an instance of " + type(v).__name__

def reveal(v):
    line = sys._getframe(1).f_lineno
    print("%d: %s" % (line, describe(v)), flush=True)

builtins.reveal = reveal
path = sys.argv[1]
entries = sys.argv[2] == "1"
sys.path.insert(0, os.path.dirname(path))
sys.argv = [path]
try:
    ns = runpy.run_path(path, run_name="__case__")
except SystemExit:
    ns = {}
if entries:
    for v in list(ns.values()):
        if isinstance(v, type) and issubclass(v, unittest.TestCase) and v.__module__ == "__case__":
            suite = unittest.TestLoader().loadTestsFromTestCase(v)
            unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
'''

EXPECT = re.compile(r"#\s*=>\s*(.*)$")
CONCRETE = re.compile(
    r'^(None|True|False|-?\d+|-?\d+\.\d{6}|b?".*"|a tuple|a list|a dict|a set|a generator|'
    r'a bound method|function \w+|class \w+|module [\w.]+|an instance of \w+)$')


def expectations(path):
  out = {}
  with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
      m = EXPECT.search(line)
      if m and "reveal(" in line:
        out[n] = [t.strip() for t in m.group(1).split(";;")]
  return out


def alternatives(text):
  may = text.endswith("(may)")
  text = text[:-len("(may)")].strip() if may else text
  return [a.strip() for a in text.split(" | ")], may


def check(case):
  main = os.path.join(case, "main.py") if os.path.isdir(case) else case
  with open(main, encoding="utf-8") as f:
    entries = f.readline().startswith("# entries")
  env = {k: v for k, v in os.environ.items() if not k.startswith("FLAG")}
  proc = subprocess.run([sys.executable, "-c", RUNNER, main, "1" if entries else "0"],
                        capture_output=True, text=True, timeout=120, env=env)
  if proc.returncode != 0:
    return [f"CPython exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"], 0
  seen = {}
  for line in proc.stdout.splitlines():
    m = re.match(r"^(\d+): (.*)$", line)
    if m:
      seen.setdefault(int(m.group(1)), []).append(m.group(2))
  want = expectations(main)
  problems, covered = [], 0
  for line, texts in sorted(want.items()):
    got = seen.get(line, [])
    options = [alternatives(t) for t in texts]
    if not got:
      if not all(may for _, may in options):
        problems.append(f"{os.path.basename(main)}:{line}: expected {texts!r}, CPython never reached it")
      continue
    allowed = [a for alts, _ in options for a in alts]

    def fits(value, alts):
      # An Unknown among the alternatives stands for any value.
      return value in alts or any(not CONCRETE.match(a) for a in alts)

    if len(options) == len(got):
      # One expected text per reveal, in the evaluator's order; CPython may
      # run the same reveals in another order (tests sorted by name).
      unused = list(range(len(options)))
      for value in got:
        match = next((k for k in unused if fits(value, options[k][0])), None)
        if match is None:
          problems.append(f"{os.path.basename(main)}:{line}: CPython gives {value}, expected one of {texts!r}")
        else:
          unused.remove(match)
          covered += 1
    else:
      for value in got:
        if fits(value, allowed):
          covered += 1
        else:
          problems.append(f"{os.path.basename(main)}:{line}: CPython gives {value}, expected {' | '.join(allowed)}")
  for line in sorted(set(seen) - set(want)):
    problems.append(f"{os.path.basename(main)}:{line}: CPython reveals {seen[line]!r} without an expectation")
  return problems, covered


def main():
  here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
  cases = sys.argv[1:] or sorted(
      os.path.join(here, c) for c in os.listdir(here) if c.endswith(".py") or os.path.isdir(os.path.join(here, c)))
  failed = 0
  for case in cases:
    problems, covered = check(case)
    print(f"{'ok' if not problems else 'FAILED'}: {os.path.basename(case)} ({covered} values)")
    for p in problems:
      print("   ", p)
    failed += bool(problems)
  print(f"{len(cases) - failed} of {len(cases)} cases agree with CPython")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
