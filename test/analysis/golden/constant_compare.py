# Comparisons of module constants in interpret=, folded as Python folds them
# when the module is lowered: each launch's `paths` says what its interpret=
# evaluated to (interpret_hlo: true, compiled: false, both: not known).
import enum

from jax.experimental import pallas as pl

MODE = "debug"
LEVEL = 2
NOTHING = None
ON = True


class Mode(enum.Enum):
  FAST = 1
  SLOW = 2


CURRENT = Mode.FAST


def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]


def by_text(x):
  return pl.pallas_call(k, out_shape=x, interpret=MODE == "debug")(x)


def by_other_text(x):
  return pl.pallas_call(k, out_shape=x, interpret=MODE != "debug")(x)


def by_order(x):
  return pl.pallas_call(k, out_shape=x, interpret=LEVEL >= 2)(x)


def by_strict_order(x):
  return pl.pallas_call(k, out_shape=x, interpret=LEVEL > 2)(x)


def by_less(x):
  return pl.pallas_call(k, out_shape=x, interpret=LEVEL < 3)(x)


def by_none(x):
  return pl.pallas_call(k, out_shape=x, interpret=NOTHING is None)(x)


def by_not_none(x):
  return pl.pallas_call(k, out_shape=x, interpret=MODE is not None)(x)


def by_bool_identity(x):
  return pl.pallas_call(k, out_shape=x, interpret=ON is False)(x)


def by_bool_value(x):
  return pl.pallas_call(k, out_shape=x, interpret=ON == 1)(x)


def by_int_identity(x):
  return pl.pallas_call(k, out_shape=x, interpret=LEVEL is 2)(x)  # noqa: F632


def by_kinds(x):
  return pl.pallas_call(k, out_shape=x, interpret=NOTHING == "debug")(x)


def by_member(x):
  return pl.pallas_call(k, out_shape=x, interpret=CURRENT is Mode.FAST)(x)


def by_other_member(x):
  return pl.pallas_call(k, out_shape=x, interpret=CURRENT == Mode.SLOW)(x)
