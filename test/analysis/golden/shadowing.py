from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def inline_mgpu(*args, **kwargs):
  """The user's own helper that happens to share JAX's name."""
  return lambda f: f


@inline_mgpu(arg_types=())
def not_jax(ctx, ref):
  plgpu.barrier_wait(ref)


def parameter_shadows(plgpu, x_ref):
  plgpu.copy_gmem_to_smem(x_ref)


def local_shadows(x_ref):
  pl = object()
  return pl.pallas_call(x_ref)


def uses_module_names(x_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  not_jax(x_ref)
