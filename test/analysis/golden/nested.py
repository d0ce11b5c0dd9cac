# Nested defs, lambdas and the higher-order constructs that run bodies.
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def matmul_kernel(a_gmem, b_gmem, o_gmem):
  def compute(idx, a_smem, b_smem):
    @functools.partial(pl.run_scoped, acc=plgpu.ACC((64, 64), jnp.float32))
    def _(acc):
      plgpu.wgmma(acc, a_smem, b_smem)
      plgpu.wgmma_wait(0)
      o_gmem[...] = acc[...].astype(o_gmem.dtype)

  plgpu.emit_pipeline(compute, grid=(4,), in_specs=[], out_specs=[])(a_gmem, b_gmem)

  @pl.when(lax.axis_index("wg") == 0)
  def _():
    pl.run_scoped(lambda bar: plgpu.barrier_wait(bar), plgpu.Barrier(num_arrivals=1))

  @pl.loop(0, 8)
  def _(step):
    if step > 4:
      o_gmem[step] = a_gmem[step]
    else:
      o_gmem[step] = b_gmem[step]

  total = lax.fori_loop(0, 8, lambda i, c: c + a_gmem[i], 0.0)
  for i in range(2):
    tmp = a_gmem.at[i]
  plgpu.barrier_arrive(tmp)

  if False:
    plgpu.inline_mgpu()(lambda ctx: None)()


def run(a, b):
  return plgpu.kernel(matmul_kernel, out_shape=a, num_threads=2, thread_name="wg")(a, b)
