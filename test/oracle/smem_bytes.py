#!/usr/bin/env python3
"""Prints, for each fixture given, the shared memory JAX's Mosaic GPU lowering
requests for its launch, as JSON {fixture: bytes | null}.

    python smem_bytes.py FIXTURE.py...

Each fixture's run() returns (fn, args) (how=lower-cuda). The lowering is run
for CUDA on the CPU with JAX's own test hook `artificial_shared_memory_limit(0)`,
so that its limit check always raises and its message carries the exact
`smem_bytes` JAX computed (null when the lowering fails before the check).
"""
import importlib.util
import json
import re
import sys
import warnings


def main(paths):
  warnings.simplefilter("ignore")
  import jax
  from jax.experimental.mosaic.gpu import core as mgpu_core
  out = {}
  for path in paths:
    spec = importlib.util.spec_from_file_location("smem_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn, args = module.run()
    out[path] = None
    try:
      with mgpu_core.artificial_shared_memory_limit(0):
        jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",))
    except Exception as exc:  # noqa: BLE001 -- the limit check is the point
      match = re.search(r"smem_bytes=(\d+) > max_smem_bytes=0", str(exc))
      if match:
        out[path] = int(match.group(1))
  print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
  main(sys.argv[1:])
