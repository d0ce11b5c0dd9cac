# interpret= in every form static analysis can evaluate, and the contexts.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax._src.pallas.mosaic_gpu.interpret.params import (
    InterpretGPUParams, force_gpu_interpret_mode, set_gpu_interpret_mode)

INTERPRET = True
GPU_PARAMS = InterpretGPUParams(skip_floating_point_ops=True)


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0


def literal(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=False)(x)


def constant(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=INTERPRET)(x)


def default(x, interpret=True):
  return pl.pallas_call(kernel, out_shape=x, interpret=interpret)(x)


def gpu_params(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=InterpretGPUParams(num_tma_threads_per_device=2))(x)


def gpu_constant(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=GPU_PARAMS)(x)


def unknown(x, mode):
  return pl.pallas_call(kernel, out_shape=x, interpret=mode)(x)


def in_context(x):
  with force_gpu_interpret_mode():
    return pl.pallas_call(kernel, out_shape=x)(x)


def after_set(x):
  set_gpu_interpret_mode(InterpretGPUParams())
  return plgpu.kernel(kernel, out_shape=x)(x)


if __name__ == "__main__":
  x = jnp.ones((128,), jnp.float32)
  print(literal(x), constant(x))
