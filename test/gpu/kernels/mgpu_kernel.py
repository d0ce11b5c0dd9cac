"""A plgpu.kernel and a pallas_call side by side; prints from the entry."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scale_body(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...] * 0.5)


@jax.jit
def scale(x):
    return plgpu.kernel(
        scale_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x)


def square_body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def main():
    print("hello from the entry")
    x = jnp.linspace(-3.0, 3.0, 256, dtype=jnp.float32)
    square = pl.pallas_call(
        square_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype)
    )
    return scale(x), square(x)
