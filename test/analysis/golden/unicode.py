# Ядро: カーネル — non-ASCII everywhere
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel_ñ(x_gmem, x_smem, barrier):
  label = "é→✓"; plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier)  # ✓
  plgpu.barrier_wait(barrier)
