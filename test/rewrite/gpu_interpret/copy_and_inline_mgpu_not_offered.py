# pallas-lsp-gpu-interpret: not-offered
# The TMA copy alone would run in GPU interpret mode, but the same launch
# also reaches an inline_mgpu region, which it cannot run: no fix.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  plgpu.barrier_wait(barrier)

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), return_type=None)
  def touch(ctx, ref):
    del ctx, ref

  touch(smem)
  o_ref[...] = smem[...]


def run(x):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                      scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                      interpret=True)(x)


def inputs():
  return (jnp.ones((128,), jnp.float32),)


def reference(x):
  return x
