"""The table as the bundled files hold it: sorted keys, so two runs against
the same JAX are byte-identical."""

from __future__ import annotations

import json
import sys


def write_table(table, output):
  """The table as the bundled files hold it, to `output` or stdout."""
  text = json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
  if output:
    with open(output, "w", encoding="utf-8") as f:
      f.write(text)
  else:
    sys.stdout.write(text)


def fallback_outcome(has_cpu_lowering, abstract_eval_asserts_ref):
  """What GPU interpret mode's generic fallback does with a primitive it has
  no arm for: it re-binds the primitive on the operands' values (a Ref
  operand is passed as its buffer's allocation key, an array), so an
  abstract-eval rule that asserts a Ref operand raises a bare
  AssertionError first (JAX 0.10.2 `plgpu.load`); otherwise the re-bound
  equation is lowered for the CPU and needs a rule there."""
  if abstract_eval_asserts_ref:
    return "abstract-eval-asserts-ref"
  return "ok" if has_cpu_lowering else "missing-lowering"
