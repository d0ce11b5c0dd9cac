# pallas-lsp-gpu-interpret: not-offered
# inline_mgpu: JAX 0.10.2's GPU interpreter cannot run inline_mgpu_p either,
# so switching to GPU interpret mode would not help.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), return_type=None)
  def touch(ctx, ref):
    del ctx, ref

  touch(x_ref)
  o_ref[...] = x_ref[...] + 1.0


def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=True)(x)


def inputs():
  return (jnp.ones((128,), jnp.float32),)


def reference(x):
  return x + 1.0
