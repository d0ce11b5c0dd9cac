# A kernel file for test/mlir/frontend/*.mlir: what the front end lowers it
# to must print, parse and print again unchanged, and the passes must find
# the same as the language server (PLS001 at the inline_mgpu call).
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scale(ref, factor):
  ref[...] = ref[...] * factor


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def touch(ctx, ref):
    del ctx, ref

  @functools.partial(pl.run_scoped, tmp=plgpu.SMEM((128,), jnp.float32))
  def _(tmp):
    tmp[...] = x_ref[...]
    scale(tmp, 2.0)
    o_ref[...] = tmp[...] if True else x_ref[...]

  touch(o_ref)
  f = lambda r: r
  f(o_ref)


def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
