"""Generates one large Pallas Mosaic GPU module for the scale benchmarks.

Every block is a kernel that reaches an `inline_mgpu` helper; every other
block launches it with `interpret=True`, which JAX rejects
(`inline_mgpu_p does not support discharge`): one PLS001 finding per such
block. `--lines 10000` gives ~325 kernels / ~160 findings, `--lines 50000`
~1600 kernels / ~800 findings. Deterministic: the same text in every run.

usage: generate_module.py [--lines N] [--every K] > module.py
       (import it: generate(lines) -> (text, edit_line))
"""
import argparse
import sys

HEADER = '''"""Generated for bench/scale: many Pallas kernels reaching inline_mgpu."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
'''


def block(i: int, interpret: bool) -> list[str]:
    return [
        "",
        "",
        f"def fence_{i}(ref):",
        f'  """Helper {i}: an inline Mosaic GPU region over one ref."""',
        "",
        "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))",
        f"  def region_{i}(ctx, r):",
        "    del ctx, r",
        "",
        f"  region_{i}(ref)",
        "",
        "",
        f"def kernel_{i}(x_ref, y_ref, o_ref):",
        "  x = x_ref[...]",
        "  y = y_ref[...]",
        f"  acc = x * {i % 7 + 1}.0 + y",
        "  acc = jnp.where(acc > 0, acc, 0.0)",
        "  o_ref[...] = acc.astype(o_ref.dtype)",
        f"  fence_{i}(o_ref)",
        "",
        "",
        f"def launch_{i}(x, y):",
        "  spec = pl.BlockSpec((8, 128), lambda r: (r, 0))",
        "  return pl.pallas_call(",
        f"      kernel_{i},",
        "      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),",
        "      grid=(x.shape[0] // 8,),",
        "      in_specs=[spec, spec],",
        "      out_specs=spec,",
        f"      interpret={'True' if interpret else 'False'},",
        "  )(x, y)",
    ]


def generate(lines: int = 10000, every: int = 2) -> tuple[str, int]:
    """The module text and a line inside a kernel near the middle (to edit)."""
    out = HEADER.splitlines()
    i = 0
    edit_line = -1
    while True:
        b = block(i, i % every == 0)
        if len(out) + len(b) > lines:
            break
        if edit_line < 0 and len(out) + len(b) > lines // 2:
            edit_line = len(out) + b.index("  x = x_ref[...]")
        out += b
        i += 1
    return "\n".join(out) + "\n", edit_line


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--every", type=int, default=2, help="one interpret=True launch per K kernels")
    a = ap.parse_args()
    text, _ = generate(a.lines, a.every)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
