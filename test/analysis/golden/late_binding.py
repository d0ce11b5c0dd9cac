# Free names of nested defs are read when the def runs: a name the enclosing
# function binds again after the def is late (either value); a name that
# only a sibling def assigns is that def's own local and is not.
import jax
from jax.experimental import pallas as pl


def build(x):
  block = 64
  mode = True

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * block

  def reset():
    mode = False  # reset's own local: `mode` of build is unchanged
    block = 0     # likewise
    return mode, block

  reset()
  return pl.pallas_call(kernel, out_shape=x, interpret=mode)(x)


def rebound(x):
  scale = 1.0

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale

  scale = 2.0  # after the def: the kernel reads 2.0 when it is traced
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)


def via_nonlocal(x):
  flag = False

  def enable():
    nonlocal flag
    flag = True

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

  enable()
  return pl.pallas_call(kernel, out_shape=x, interpret=flag)(x)



def by_name_only(x):
  fast = False

  def set_fast():
    nonlocal fast
    fast_mode = "eager"  # another name that contains `fast`: not a use of it
    del fast_mode
    fast = True

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

  set_fast()
  return pl.pallas_call(kernel, out_shape=x, interpret=fast)(x)
