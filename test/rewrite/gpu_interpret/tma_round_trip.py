# pallas-lsp-gpu-interpret: offered
# A TMA round trip: copy_gmem_to_smem / copy_smem_to_gmem have no state
# discharge rule, so the HLO interpreter fails; GPU interpret mode simulates them.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  plgpu.barrier_wait(barrier)
  smem[...] = smem[...] * 2.0 + 1.0
  plgpu.commit_smem()
  plgpu.copy_smem_to_gmem(smem, o_ref)
  plgpu.wait_smem_to_gmem(0)


def run(x):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                      scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                      interpret=True)(x)


def inputs():
  return (jnp.arange(128, dtype=jnp.float32),)


def reference(x):
  return x * 2.0 + 1.0
