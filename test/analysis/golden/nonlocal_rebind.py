# A closure that rebinds an enclosing name with `nonlocal`: calling it sets
# the name to its last plain assignment, unless another statement of its
# body mentions the name (a condition, a call), where the value after the
# call is not known from the text.
import jax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1


def plain(x):
  interpret = False

  def enable():
    nonlocal interpret
    interpret = True

  enable()
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=interpret)(x)


def conditional(x, verbose):
  interpret = False

  def enable():
    nonlocal interpret
    interpret = True
    if verbose:
      print("interpret:", interpret)
      interpret = False

  enable()
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=interpret)(x)
