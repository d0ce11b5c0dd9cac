"""inline_mgpu on a ref: cannot be discharged, so interpret=True fails."""

import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), return_type=None)
    def touch(ctx, ref):
        del ctx, ref

    touch(o_ref)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    return plgpu.kernel(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
