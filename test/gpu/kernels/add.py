"""A pallas_call kernel; the user's code asks for interpret=False (compiled)."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...] * 2.0


# Built at import time, as real code does: the runner must still switch it.
add = pl.pallas_call(
    add_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), interpret=False
)


# pallas-lsp: entry
def main():
    x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 7.0
    y = jnp.ones((16, 128), jnp.float32)
    return {"sum": add(x, y), "x": x}


def takes_args(x):
    return add(x, x)


if __name__ == "__main__":
    print(main()["sum"].sum())
