from jax.experimental.pallas import mosaic_gpu as plgpu


def copy_in(src, dst, barrier):
  plgpu.copy_gmem_to_smem(src, dst, barrier)
  plgpu.barrier_wait(barrier)


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def stage(ctx, smem_ref):
  pass
