// The scale benchmark's module (the same text as bench/scale/generate_module.py):
// every block is a kernel that reaches an `inline_mgpu` helper, and every
// other block launches it with interpret=True, which JAX rejects (one PLS001
// finding each). 10,000 lines: ~320 kernels / ~160 findings; 50,000 lines:
// ~1,600 kernels / ~800 findings. Deterministic.
const HEADER = `"""Generated for bench/scale: many Pallas kernels reaching inline_mgpu."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu`;

function block(i, interpret) {
  return [
    '',
    '',
    `def fence_${i}(ref):`,
    `  """Helper ${i}: an inline Mosaic GPU region over one ref."""`,
    '',
    '  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))',
    `  def region_${i}(ctx, r):`,
    '    del ctx, r',
    '',
    `  region_${i}(ref)`,
    '',
    '',
    `def kernel_${i}(x_ref, y_ref, o_ref):`,
    '  x = x_ref[...]',
    '  y = y_ref[...]',
    `  acc = x * ${(i % 7) + 1}.0 + y`,
    '  acc = jnp.where(acc > 0, acc, 0.0)',
    '  o_ref[...] = acc.astype(o_ref.dtype)',
    `  fence_${i}(o_ref)`,
    '',
    '',
    `def launch_${i}(x, y):`,
    '  spec = pl.BlockSpec((8, 128), lambda r: (r, 0))',
    '  return pl.pallas_call(',
    `      kernel_${i},`,
    '      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),',
    '      grid=(x.shape[0] // 8,),',
    '      in_specs=[spec, spec],',
    '      out_specs=spec,',
    `      interpret=${interpret ? 'True' : 'False'},`,
    '  )(x, y)',
  ];
}

/**
 * edit "kernel": type after a literal in a kernel's body (the kernel
 * changes); "interpret": the `e` of the middle launch's `interpret=True`
 * (deleted, `Tru` is a name nothing defines, and typed back: the launch's
 * path changes each time).
 * @returns {{ text: string, editLine: number, editColumn: number, kernels: number }}
 */
export function generate(lines = 10000, every = 2, edit = 'kernel') {
  const out = HEADER.split('\n');
  let i = 0;
  let editLine = -1;
  let editColumn = 0;
  for (;;) {
    const b = block(i, i % every === 0);
    if (out.length + b.length > lines) break;
    if (editLine < 0 && out.length + b.length > Math.floor(lines / 2)) {
      if (edit === 'interpret') {
        const k = b.findIndex((l) => l.includes('interpret=True'));
        if (k >= 0) {
          editLine = out.length + k;
          editColumn = b[k].indexOf('True') + 3;
        }
      } else {
        // Type after the literal of `acc = x * K.0 + y`: the kernel changes,
        // the file stays valid.
        const k = b.findIndex((l) => l.startsWith('  acc = x * '));
        editLine = out.length + k;
        editColumn = b[k].indexOf('.0') + 2;
      }
    }
    out.push(...b);
    i++;
  }
  return { text: out.join('\n') + '\n', editLine, editColumn, kernels: i };
}
