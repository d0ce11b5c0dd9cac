# Every spelling of the JAX / Pallas imports, side by side.
import functools
import jax
import jax.numpy as jnp
import jax.experimental.pallas as pl2
import jax.experimental.pallas.mosaic_gpu as plgpu2
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas.mosaic_gpu import inline_mgpu as im, RefType
from jax.experimental.mosaic import gpu as mgpu

gpu = plgpu          # a plain alias assignment
call = pl.pallas_call


def kernel(x_gmem, o_gmem, x_smem, barrier):
  plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier)
  plgpu2.barrier_wait(barrier)
  gpu.commit_smem()

  @im(arg_types=(RefType(),), return_type=plgpu.ShapeDtypeStruct((128,), jnp.float32))
  def add_one(ctx, smem_ref):
    x = mgpu.FragmentedArray.load_tiled(smem_ref)
    return x + mgpu.c(1, x.mlir_dtype)

  y = add_one(x_smem)
  plgpu.copy_smem_to_gmem(x_smem, o_gmem)


def run(x):
  a = pl2.pallas_call(kernel, out_shape=x, interpret=True)(x)
  b = call(kernel, out_shape=x)(x)
  c = jax.experimental.pallas.pallas_call(kernel, out_shape=x)(x)
  return a, b, c
