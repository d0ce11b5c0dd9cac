"""A TMA copy kernel (GMEM -> SMEM -> GMEM with a barrier) run in GPU interpret mode."""
import jax
import jax.numpy as jnp
from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
from jax.experimental.pallas import mosaic_gpu as plgpu


def copy_kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  plgpu.barrier_wait(barrier)
  smem[...] = smem[...] * 2.0
  plgpu.commit_smem()
  plgpu.copy_smem_to_gmem(smem, o_ref)
  plgpu.wait_smem_to_gmem(0)


def double(x, interpret=None):
  return plgpu.kernel(copy_kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                      scratch_types=[plgpu.SMEM(x.shape, x.dtype), plgpu.Barrier()], interpret=interpret)(x)


def main():
  x = jnp.arange(128, dtype=jnp.float32)
  gpu = jax.default_backend() == "gpu"
  print(double(x, interpret=None if gpu else InterpretGPUParams(detect_races=True))[:4])


if __name__ == "__main__":
  main()
