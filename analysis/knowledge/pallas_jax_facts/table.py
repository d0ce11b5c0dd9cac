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
