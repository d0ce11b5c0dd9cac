# pallas-lsp-gpu-interpret: offered
# pallas_call whose kernel reaches the TMA copy through a helper: the fix is
# on the launch, and GPU interpret mode runs the whole call chain.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def stage(src, smem, barrier):
  plgpu.copy_gmem_to_smem(src, smem, barrier)
  plgpu.barrier_wait(barrier)


def kernel(x_ref, o_ref):
  def body(smem, barrier):
    stage(x_ref, smem, barrier)
    o_ref[...] = smem[...] - 3.0

  pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32), plgpu.Barrier())


def run(x):
  return pl.pallas_call(
      kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      in_specs=[pl.BlockSpec(memory_space=plgpu.GMEM)],
      interpret=True,
  )(x)


def inputs():
  return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128),)


def reference(x):
  return x - 3.0
