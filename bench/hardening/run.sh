#!/usr/bin/env bash
# Adversarial-input timings (issue 14), reported, never asserted: `check` on
# an interpret=True kernel whose inline_mgpu region holds one long
# expression (N terms: `x + x + ... + x`) or a long attribute chain, and on
# deep or wide syntax (a list literal of N elements in the region). Wall time of the whole process (best of 3).
#   bench/hardening/run.sh [PALLAS_LSP_BIN]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-${PALLAS_LSP_BIN:-$root/build/server/pallas-lsp}}"
python="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
"$python" - "$work" <<'PY'
import sys, os
work = sys.argv[1]
head = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.experimental.mosaic.gpu as mgpu

def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), return_type=plgpu.ShapeDtypeStruct((256,), jnp.float32, layout=plgpu.Layout.WG_STRIDED((256,), vec_size=2)))
  def body(ctx, ref):
    x = mgpu.FragmentedArray.load_strided(ref, vec_size=2)
"""
tail = """    return y
  o_ref[...] = body(x_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32), interpret=True)(x)
"""
for n in (250, 500, 1000, 2000, 5000):
    open(os.path.join(work, f"sum{n}.py"), "w").write(head + "    y = " + " + ".join(["x"] * n) + "\n" + tail)
# Wide syntax in a region: one list literal of N elements (each child loop
# over tree-sitter's ts_node_named_child(n, i) made this quadratic).
for n in (20000, 100000):
    open(os.path.join(work, f"list{n}.py"), "w").write(head + "    y = [" + ", ".join(["1"] * n) + "]\n" + tail)
open(os.path.join(work, "attr40000.py"), "w").write(head + "    y = x" + ".b" * 40000 + "\n" + tail)
open(os.path.join(work, "elif60000.py"), "w").write(head.split("def kernel")[0] + "def f(x):\n  if x:\n    pass\n" + "  elif x:\n    pass\n" * 60000)
open(os.path.join(work, "parens400000.py"), "w").write(head.split("def kernel")[0] + "def f():\n  x = " + "(" * 400000 + "1" + ")" * 400000 + "\n")
PY
printf '%-18s %10s\n' input "seconds"
for f in sum250 sum500 sum1000 sum2000 sum5000 list20000 list100000 attr40000 elif60000 parens400000; do
  best=""
  for _ in 1 2 3; do
    start=$(date +%s.%N)
    "$bin" check --no-config "$work/$f.py" >/dev/null 2>&1 || true
    t=$(echo "$(date +%s.%N) - $start" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  printf '%-18s %10.3f\n' "$f" "$best"
done
