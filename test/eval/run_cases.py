#!/usr/bin/env python3
"""The evaluator's own tests: each test/eval/cases/*.py (or a folder with a
main.py) is run by `py-eval` (analysis/tools/py-eval), which prints what every
`reveal(expr)` call saw; each revealing line carries the expected text in a
trailing comment:

    reveal(x)            # => 3
    reveal(kernel)       # => function body_a | function body_b
    reveal(flag)         # => True  (may)

Several values are sorted and joined with " | "; " (may)" marks a reveal
that ran in a part of the program the evaluator could not decide it reaches.
A line revealed several times expects each text in order, separated by
" ;; ". A file whose first line is `# entries` also runs its entry points;
one whose first line starts with `# jax` (or `# entries jax`) runs with the
JAX / Pallas overlay (the analysis's view of JAX) installed.
Usage: run_cases.py PY_EVAL [CASE...]
"""
import os
import re
import subprocess
import sys

EXPECT = re.compile(r"#\s*=>\s*(.*)$")


def expectations(path):
  out = {}
  with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
      m = EXPECT.search(line)
      if m and "reveal(" in line:
        out[n] = [t.strip() for t in m.group(1).split(";;")]
  return out


def run(py_eval, case):
  main = os.path.join(case, "main.py") if os.path.isdir(case) else case
  with open(main, encoding="utf-8") as f:
    first = f.readline()
  entries = first.startswith("# entries")
  args = [py_eval, main] + (["--entries"] if entries else [])
  # `# jax` cases run with the JAX / Pallas overlay installed.
  if first.startswith("# jax") or first.startswith("# entries jax"):
    args.append("--jax")
  if os.path.isdir(case):
    args += ["--root", case]
  # The environment the evaluator reads variables from (lib_environment.py).
  env = {k: v for k, v in os.environ.items() if not k.startswith("FLAG")}
  env["PALLAS_LSP_CASE_LEVEL"] = "3"
  proc = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
  if proc.returncode != 0:
    return [f"py-eval exited {proc.returncode}: {proc.stderr.strip()}"]
  seen = {}
  for line in proc.stdout.splitlines():
    m = re.match(r"^(\d+): (.*)$", line)
    if m:
      seen.setdefault(int(m.group(1)), []).append(m.group(2).strip())
  problems = []
  files = [main] if not os.path.isdir(case) else [
      os.path.join(case, f) for f in sorted(os.listdir(case)) if f.endswith(".py")]
  want = expectations(main)
  for line, texts in sorted(want.items()):
    got = seen.get(line, [])
    if got != texts:
      problems.append(f"{os.path.basename(main)}:{line}: expected {' ;; '.join(texts)!r}, got {' ;; '.join(got) or 'nothing'!r}")
  for line in sorted(set(seen) - set(want)):
    problems.append(f"{os.path.basename(main)}:{line}: revealed {seen[line]!r} without an expectation")
  return problems


def main():
  py_eval = sys.argv[1]
  here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
  cases = sys.argv[2:] or sorted(
      os.path.join(here, c) for c in os.listdir(here) if c.endswith(".py") or os.path.isdir(os.path.join(here, c)))
  failed = 0
  for case in cases:
    problems = run(py_eval, case)
    status = "ok" if not problems else "FAILED"
    print(f"{status}: {os.path.basename(case)}")
    for p in problems:
      print("   ", p)
    failed += bool(problems)
  print(f"{len(cases) - failed} of {len(cases)} evaluator cases pass")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
