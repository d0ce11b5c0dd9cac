"""Hardware requirements: the capability gates of jax._src.test_util's
skip_unless_* helpers, and which primitives need which gate (by name)."""

from __future__ import annotations

import re

from .live_objects import _source_of, _try_import


def hardware_gates():
  """Capability gates of jax._src.test_util's skip_unless_* helpers."""
  test_util = _try_import("jax._src.test_util")
  gates = {}
  if test_util is None:
    return gates
  for owner in [test_util] + [v for v in vars(test_util).values() if isinstance(v, type)]:
    for name, fn in sorted(vars(owner).items()):
      if not name.startswith("skip_unless_") or not callable(fn):
        continue
      gate = capability_gate(_source_of(fn) or "")
      if gate:
        gates[name] = gate
  return gates


def capability_gate(source):
  """The capability checks in one skip_unless_* helper's source, or None.
  Shared with the static reader."""
  equal = re.findall(r'capability_equal\("([\d.]+)"\)', source)
  at_least = re.findall(r'capability_at_least\("([\d.]+)"\)', source)
  majors = re.findall(r"target_major not in \(([\d, ]+)\)", source)
  if not (equal or at_least or majors):
    return None
  return {
      "capabilityEquals": sorted(set(equal)),
      "capabilityAtLeast": sorted(set(at_least)),
      "majorIn": sorted({int(m) for group in majors for m in group.split(",") if m.strip()}),
      "source": "jax/_src/test_util.py",
  }


# Which gate applies to a primitive is not stated by JAX in code; this rule
# (by primitive name) mirrors how JAX's own tests gate those primitives.
_GATE_BY_NAME = (
    (re.compile(r"tcgen05|tmem"), "skip_unless_tcgen05", "Blackwell (tcgen05 / TMEM)"),
    (re.compile(r"wgmma"), "skip_unless_sm90a", "Hopper sm_90a (wgmma)"),
)


def hardware_entry(prim_name, gates):
  for pattern, gate, what in _GATE_BY_NAME:
    if pattern.search(prim_name) and gate in gates:
      return {"requires": what, "gate": gate, **{k: v for k, v in gates[gate].items() if k != "source"},
              "source": f"name rule + test gating ({gates[gate]['source']}:{gate})"}
  return None
