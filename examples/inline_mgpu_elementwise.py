"""An elementwise kernel that finishes with raw Mosaic GPU code (inline_mgpu).

Compiled on a Hopper GPU it runs; under interpret=True the HLO interpreter
discharges o_ref and inline_mgpu_p raises 'does not support discharge'.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scale_kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] * 2.0

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def publish(ctx, ref):
    del ctx, ref  # a real kernel would emit a fence / TMA store here

  publish(o_ref)


def scale(x):
  return plgpu.kernel(scale_kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
  x = jnp.ones((128,), jnp.float32)
  if jax.default_backend() == "gpu":
    print(scale(x)[:4])
  else:
    print(jax.jit(scale).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:200])


if __name__ == "__main__":
  main()
