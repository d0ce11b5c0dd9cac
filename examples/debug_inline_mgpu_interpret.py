"""Debugging a kernel with interpret=True when it uses inline_mgpu.

This is the mistake pallas-lsp reports (PLS001): the interpreter cannot run
inline_mgpu with a kernel ref. Fix: replace the region with standard Pallas,
or run compiled on a GPU.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def bump_kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def touch(ctx, ref):
    del ctx, ref

  o_ref[...] = x_ref[...] + 1.0
  touch(o_ref)


def main():
  x = jnp.zeros((128,), jnp.float32)
  out = pl.pallas_call(bump_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
  print(out[:4])


if __name__ == "__main__":
  main()
