from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def before(x_gmem, x_smem, barrier):
  plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier)


def being_typed(x_ref, o_ref
  o_ref[...] = x_ref[
  plgpu.barrier_wait(


def after(x_smem, o_gmem):
  plgpu.copy_smem_to_gmem(x_smem, o_gmem)
  plgpu.wait_smem_to_gmem(0)
