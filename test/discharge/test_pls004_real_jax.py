"""The PLS004 fixtures, run with real JAX: each declares in a `# jax:` header
what tracing it does (ok, or the exception type), and marks with
`# expect: PLS004/...` the line JAX blames. This checks the fixtures (and so
the golden tests that use them) against JAX itself."""
import importlib.util
import os
import re
import sys
import traceback

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
PATHS = sorted(os.path.join(FIXTURES, f) for f in os.listdir(FIXTURES) if f.startswith("pls004_"))


def _load(path):
  spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


@pytest.mark.parametrize("path", PATHS, ids=os.path.basename)
def test_jax_fails_where_pls004_is_expected(path):
  import jax
  text = open(path, encoding="utf-8").read()
  want = re.search(r"^# jax: (\w+)", text, re.M).group(1)
  marks = [i + 1 for i, line in enumerate(text.splitlines()) if "# expect: PLS004" in line]
  fn, args = _load(path).run()
  try:
    jax.make_jaxpr(fn)(*args)  # tracing is where inline_mgpu checks its types
  except Exception as exc:  # noqa: BLE001 -- the exception is what we check
    assert type(exc).__name__ == want, f"{type(exc).__name__}: {exc}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename) == path]
    assert frames and frames[-1].lineno in marks, (frames[-1].lineno if frames else None, marks)
    return
  assert want == "ok" and not marks, f"JAX traced {os.path.basename(path)} without error"


if __name__ == "__main__":
  sys.exit(pytest.main([__file__, "-q"]))
