"""plgpu.kernel with num_threads: two warpgroups, one writes the output."""
import functools

import jax
import jax.numpy as jnp
from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def producer_consumer(x_ref, o_ref):
  wg = jax.lax.axis_index("wg")

  @pl.when(wg == 0)
  def _():
    o_ref[...] = x_ref[...] + 1.0


def run(x, interpret=None):
  kernel = functools.partial(plgpu.kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), num_threads=2,
                             thread_name="wg", interpret=interpret)
  return kernel(producer_consumer)(x)


def main():
  x = jnp.zeros((128,), jnp.float32)
  # interpret=True cannot run multi-threaded kernels; GPU interpret mode can.
  print(run(x, None if jax.default_backend() == "gpu" else InterpretGPUParams())[:4])


if __name__ == "__main__":
  main()
