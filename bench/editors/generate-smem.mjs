// The SMEM benchmark's module (issue 17's edit-latency case): 200 Mosaic GPU
// matmul launches in about 6,000 lines, each pipelined over its sequential K
// axis with an f32 accumulator scratch, so every launch has an SMEM budget
// (PLS005) and Mosaic GPU rule checks (PLS006-PLS009) to evaluate.
//   variant 'over': 4 stages of (128, 64) + (64, 256) + (128, 256) f16 blocks
//                   and a (128, 256) f32 scratch: 589,856 B, over the limit
//                   (one PLS005 per launch);
//   variant 'fit':  2 stages and N blocks of 128: 163,872 B, no finding.
// Each kernel calls its own helper and one helper all kernels share
// (`finish`), so an edit can touch one launch's code or every launch's;
// each launch is called with known operands (`run_i`), as in a test.
// Deterministic: the same text in every run.
const header = (variant) => `"""Generated for bench/editors: 200 Mosaic GPU launches sized against SMEM."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

M, N, K = 1024, 1024, 4096
BLOCK_M, BLOCK_N, BLOCK_K = 128, ${variant === 'over' ? 256 : 128}, 64
STAGES = ${variant === 'over' ? 4 : 2}


def finish(acc):
  """Shared by every kernel: the epilogue."""
  return jnp.maximum(acc, 0.0)`;

function block(i) {
  return [
    '',
    '',
    `def scale_${i}(x):`,
    `  return x * ${(i % 7) + 1}.0`,
    '',
    `def matmul_kernel_${i}(a_ref, b_ref, o_ref, acc_ref):`,
    '  @pl.when(pl.program_id(2) == 0)',
    '  def _():',
    '    acc_ref[...] = jnp.zeros_like(acc_ref)',
    `  acc_ref[...] += jnp.float32(2.0) * scale_${i}(acc_ref[...])`,
    '  o_ref[...] = finish(acc_ref[...]).astype(o_ref.dtype)',
    '',
    `def matmul_${i}(a, b, stages=STAGES):`,
    '  return pl.pallas_call(',
    `      matmul_kernel_${i},`,
    '      grid=(M // BLOCK_M, N // BLOCK_N, K // BLOCK_K),',
    '      in_specs=[pl.BlockSpec((BLOCK_M, BLOCK_K), lambda i, j, k: (i, k)),',
    '                pl.BlockSpec((BLOCK_K, BLOCK_N), lambda i, j, k: (k, j))],',
    '      out_specs=pl.BlockSpec((BLOCK_M, BLOCK_N), lambda i, j, k: (i, j)),',
    '      out_shape=jax.ShapeDtypeStruct((M, N), a.dtype),',
    '      scratch_shapes=[plgpu.SMEM((BLOCK_M, BLOCK_N), jnp.float32)],',
    '      compiler_params=plgpu.CompilerParams(',
    '          dimension_semantics=("parallel", "parallel", "sequential"),',
    '          max_concurrent_steps=stages),',
    '  )(a, b)',
    '',
    `def run_${i}():`,
    '  a = jnp.ones((M, K), jnp.float16)',
    `  return matmul_${i}(a, jnp.ones((K, N), jnp.float16))`,
  ];
}

/**
 * @param {number} launches
 * @param {'over'|'fit'} variant
 * @param {'kernel'|'helper'} edit where the benchmark types: one kernel's
 *   body in the middle of the file, or the helper every kernel calls
 * @returns {{ text: string, editLine: number, editColumn: number, kernels: number }}
 */
export function generate(launches = 200, variant = 'over', edit = 'kernel') {
  const out = header(variant).split('\n');
  let editLine = -1;
  let editColumn = 0;
  if (edit === 'helper') {
    editLine = out.findIndex((l) => l.includes('jnp.maximum(acc, 0.0)'));
    editColumn = out[editLine].indexOf('0.0') + 3;
  }
  for (let i = 0; i < launches; i++) {
    const b = block(i);
    if (editLine < 0 && i === Math.floor(launches / 2)) {
      // Type after the literal of `jnp.float32(2.0)`: the kernel changes, the
      // file stays valid.
      const k = b.findIndex((l) => l.includes('jnp.float32(2.0)'));
      editLine = out.length + k;
      editColumn = b[k].indexOf('2.0') + 3;
    }
    out.push(...b);
  }
  return { text: out.join('\n') + '\n', editLine, editColumn, kernels: launches };
}
