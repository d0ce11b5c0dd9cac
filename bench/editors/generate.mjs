// Generates the benchmark's kernel file: a realistic Pallas Mosaic GPU module
// of about `lines` lines, made of repeated blocks (a kernel, a helper it
// calls, a launch), a fifth of which use inline_mgpu under interpret=True so
// that the file has findings. Deterministic: the same lines in every run.
const HEADER = `"""Generated for bench/editors: many Pallas kernels in one module."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

`;

function block(i) {
  const inline = i % 5 === 0;
  const lines = [
    '',
    `def scale_${i}(x, factor):`,
    `  """Scales a loaded block; a helper the kernel calls."""`,
    `  y = x * factor`,
    `  y = jnp.where(y > 0, y, 0.0)`,
    `  return y + ${i}.0`,
    '',
    '',
    `def kernel_${i}(x_ref, y_ref, o_ref):`,
    `  x = x_ref[...]`,
    `  y = y_ref[...]`,
    `  acc = scale_${i}(x, 2.0) + y`,
    `  for _ in range(2):`,
    `    acc = acc * 0.5 + jnp.tanh(acc)`,
    `  o_ref[...] = acc.astype(o_ref.dtype)`,
  ];
  if (inline) {
    lines.push(
      '',
      `  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))`,
      `  def fence_${i}(ctx, ref):`,
      `    del ctx, ref`,
      '',
      `  fence_${i}(o_ref)`,
    );
  }
  lines.push(
    '',
    '',
    `@functools.partial(jax.jit, static_argnames=("interpret",))`,
    `def launch_${i}(x, y, *, interpret=${inline ? 'True' : 'False'}):`,
    `  spec = pl.BlockSpec((8, 128), lambda r: (r, 0))`,
    `  return pl.pallas_call(`,
    `      kernel_${i},`,
    `      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),`,
    `      grid=(x.shape[0] // 8,),`,
    `      in_specs=[spec, spec],`,
    `      out_specs=spec,`,
    `      interpret=${inline ? 'True' : 'interpret'},`,
    `  )(x, y)`,
    '',
    '',
    `def test_${i}():`,
    `  x = jnp.ones((64, 128), jnp.float32)`,
    `  out = launch_${i}(x, x)`,
    `  assert out.shape == x.shape`,
    `  return out`,
    '',
  );
  return lines;
}

/** @returns {{ text: string, editLine: number, editColumn: number }} */
export function generate(lines = 10000) {
  const out = HEADER.split('\n');
  let i = 0;
  let editLine = -1;
  for (;;) {
    const b = block(i);
    if (out.length + b.length > lines) {
      break; // whole blocks only, so the file stays valid Python
    }
    if (editLine < 0 && out.length + b.length > lines / 2) {
      // Edit in the middle of the file, right after `acc = scale_i(x, 2.0` (the literal 2.0).
      const k = b.findIndex((l) => l.includes(`acc = scale_${i}(x, 2.0)`));
      editLine = out.length + k;
    }
    out.push(...b);
    i++;
  }
  while (out.length < lines) {
    out.push(`# padding ${out.length}`);
  }
  const text = out.join('\n') + '\n';
  const editColumn = out[editLine].indexOf('2.0') + 3;
  return { text, editLine, editColumn, kernels: i };
}
