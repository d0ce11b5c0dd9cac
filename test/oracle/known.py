"""The oracle's known disagreements (known_disagreements.txt): pallas-lsp
disagrees with JAX there, and each is expected to fail (strict xfail), so
that a fix of the analysis shows up and removes its line."""
import os

import pytest

FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_disagreements.txt")


def read():
  """{(fixture name, run): reason}."""
  out = {}
  with open(FILE, encoding="utf-8") as f:
    for raw in f:
      line = raw.strip()
      if not line or line.startswith("#"):
        continue
      name, run, reason = line.split(None, 2)
      out[(name, run)] = reason
  return out


def mark(request, known, fixture, run):
  reason = known.get((os.path.basename(fixture), run))
  if reason:
    request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def check(known, fixtures, runs):
  names = {os.path.basename(p) for p in fixtures}
  for (name, run), reason in known.items():
    assert name in names, f"{FILE}: no fixture {name}"
    assert run in runs, f"{FILE}: {run} is not one of {runs}"
    assert len(reason) > 20, f"{FILE}: {name} {run} needs a reason"
