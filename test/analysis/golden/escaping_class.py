# A class whose objects' attributes are read off its text only while the
# text shows every way they can change: a class passed to a function
# escapes (whoever gets it may replace its __init__), while a class named as a
# base, or only called, does not.
import jax
from jax.experimental import pallas as pl


class Settings:
  def __init__(self):
    self.interpret = False


class Fixed:
  def __init__(self):
    self.interpret = False


class Derived(Fixed):
  pass


REGISTRY = []


def register(cls):
  REGISTRY.append(cls)  # what is done with it later is not in this file


register(Settings)


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1


SETTINGS = Settings()
FIXED = Fixed()
DERIVED = Derived()


def escaped(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=SETTINGS.interpret)(x)


def kept(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=FIXED.interpret)(x)


def inherited(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=DERIVED.interpret)(x)
