"""Standard-only Pallas kernel: runs compiled on a GPU and under interpret=True."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y, *, interpret=False):
  spec = pl.BlockSpec((1, x.shape[1]), lambda i: (i, 0))
  return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0],),
                        in_specs=[spec, spec], out_specs=spec, interpret=interpret)(x, y)


def main():
  x = jnp.arange(4 * 128, dtype=jnp.float32).reshape(4, 128)
  print(add(x, x, interpret=jax.default_backend() != "gpu")[0, :4])


if __name__ == "__main__":
  main()
