"""A kernel whose inline_mgpu region takes no refs: Mosaic GPU compiles it on
a Hopper GPU; the interpret paths cannot run it (no XLA rule for
inline_mgpu_p). Used by gpu/device-check.sh and the runner tests."""

import jax
import jax.numpy as jnp
from jax._src.lib.mlir import ir
from jax.experimental import pallas as pl
from jax.experimental.mosaic import gpu as mgpu
from jax.experimental.pallas import mosaic_gpu as plgpu

SHAPE = (128,)


def splat(value):
    """jnp.full(SHAPE, value) written as raw Mosaic GPU."""

    @plgpu.inline_mgpu(
        return_type=plgpu.ShapeDtypeStruct(
            SHAPE, jnp.float32, layout=plgpu.Layout.WG_SPLAT(SHAPE)
        )
    )
    def fn(_):
        return mgpu.FragmentedArray.splat(mgpu.c(value, ir.F32Type.get()), SHAPE)

    return fn()


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + splat(1.5)


# pallas-lsp: entry
def main():
    x = jnp.arange(128, dtype=jnp.float32)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(SHAPE, jnp.float32))(x)
