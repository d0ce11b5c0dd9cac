"""Hopper matmul: emit_pipeline feeds SMEM tiles to wgmma into a plgpu.ACC.

The accumulator is discharged by Mosaic GPU lowering (that is how wgmma
works); everything else stays a ref. Compiled-only: wgmma needs sm_90a.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

TM, TN, TK = 64, 64, 64


def matmul_kernel(a_gmem, b_gmem, o_gmem):
  transforms = (plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128))

  def acc_scope(acc_ref):
    def step(_, a_smem, b_smem):
      plgpu.wgmma(acc_ref, a_smem, b_smem)
      plgpu.wgmma_wait(0)

    plgpu.emit_pipeline(
        step,
        grid=(a_gmem.shape[1] // TK,),
        in_specs=[plgpu.BlockSpec((TM, TK), lambda k: (0, k), transforms=transforms),
                  plgpu.BlockSpec((TK, TN), lambda k: (k, 0), transforms=transforms)],
    )(a_gmem, b_gmem)
    return acc_ref[...]

  acc = pl.run_scoped(acc_scope, plgpu.ACC((TM, TN), jnp.float32))
  o_gmem[...] = acc.astype(o_gmem.dtype)


def matmul(a, b):
  return plgpu.kernel(matmul_kernel, out_type=jax.ShapeDtypeStruct((TM, TN), a.dtype))(a, b)


def main():
  a = jnp.ones((TM, 4 * TK), jnp.float16)
  b = jnp.ones((4 * TK, TN), jnp.float16)
  if jax.default_backend() == "gpu":
    print(matmul(a, b)[0, :4])
  else:
    print(jax.jit(matmul).trace(a, b).lower(lowering_platforms=("cuda",)).as_text()[:200])


if __name__ == "__main__":
  main()
