from jax.experimental.pallas import mosaic_gpu as plgpu
from .copies import stage
