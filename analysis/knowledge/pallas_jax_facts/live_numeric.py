"""What the numeric functions kernels call bind ("numericApis"), and which
of those primitives Mosaic GPU can lower ("numericPrimitives"), found by
tracing each public function of jax.numpy, jax.lax, jax.nn and
jax.scipy.special with float32 arrays (import-based extractor only: the
static read cannot trace, and records null).

A compiled Mosaic GPU kernel that calls `jnp.sqrt` binds `sqrt`, for which
JAX 0.10.2 registers no Mosaic GPU lowering rule: lowering raises
"Unimplemented primitive in Pallas Mosaic GPU lowering: sqrt ...". The
bytecode scan of the Pallas APIs (live_binds.py) does not follow jnp/lax
(it would pull in every arithmetic primitive), so these are traced instead.
"""

from __future__ import annotations

import inspect
import warnings

from .live_objects import _public_names, _try_import

# name as users write it -> module
NUMERIC_MODULES = {
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "jax.nn": "jax.nn",
    "jax.scipy.special": "jax.scipy.special",
}

# Primitives that hold a function: their body is the function's own
# business (pjit/closed_call are looked through; custom derivatives are
# "customDerivativeApis"' business, and stop the walk).
_LOOK_THROUGH = ("pjit", "jit", "closed_call", "core_call")
_STOP = ("custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr")

_FULL = {"LanexWarpgroup", "WarpgroupxWarpgroup"}

# Each function is traced with float32 arrays of these shapes, with one,
# then two, then three of them: the first shape and arity that trace are
# recorded (a square shape for what multiplies matrices: jnp.matmul).
_SHAPES = ((8, 128), (128, 128))

# What kernels write with operators and array attributes instead of calls,
# recorded under these names like functions (traced with arrays only: a
# Python float has no `.T`, and `0.5 @ 0.5` is an error).
OPERATORS = {
    "operator.matmul": lambda a, b: a @ b,
    "jax.Array.T": lambda a: a.T,
    "jax.Array.mT": lambda a: a.mT,
}


def _primitives(jaxpr, out):
  """The primitives bound, in the order their equations come (Mosaic GPU
  lowers equation by equation: the first without a rule raises)."""
  for eqn in jaxpr.eqns:
    name = eqn.primitive.name
    if name in _STOP:
      out.append(name)
      continue
    inner = [v for v in eqn.params.values() if hasattr(v, "eqns") or hasattr(v, "jaxpr")]
    if name in _LOOK_THROUGH and inner:
      for sub in inner:
        _primitives(getattr(sub, "jaxpr", sub), out)
      continue
    if eqn.primitive not in out:
      out.append(eqn.primitive)


def _bound(fn, jax, args, constants=False):
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      # constants: the arguments are Python values the traced function
      # closes over (what `jnp.array(0.0)` in a kernel sees), not inputs.
      closed = jax.make_jaxpr(lambda: fn(*args))() if constants else jax.make_jaxpr(fn)(*args)
  except Exception:  # noqa: BLE001 -- a function these arguments do not fit
    return None
  found = []
  _primitives(closed.jaxpr, found)
  return found


# First parameters that take a sequence of arrays (`jnp.concatenate(arrays)`,
# `jnp.hstack(tup)`): such a function is called with one list of arrays. (An
# array is a sequence too, so the positional call traces, as something else:
# `jnp.concatenate(a)` joins the rows of one array.)
_SEQUENCE_PARAMETERS = ("arrays", "tup", "xs")


def _takes_sequence(fn):
  try:
    params = list(inspect.signature(fn).parameters)
  except (TypeError, ValueError):
    return False
  return bool(params) and params[0] in _SEQUENCE_PARAMETERS


def _arguments(fn, shape, arity, jnp):
  """The arguments to call fn with, `arity` float32 arrays of `shape`, as
  (arrays, the same with Python floats): one list of them for a function
  of a sequence, else positionally."""
  if _takes_sequence(fn):
    # Two at least: joining one array is that array, and binds nothing.
    arrays = [jnp.ones(shape, jnp.float32) for _ in range(max(arity, 2))]
    return [arrays], [[0.5] * len(arrays)]
  arrays = [jnp.ones(shape, jnp.float32) for _ in range(arity)]
  return arrays, [0.5] * arity


def _trace(fn, jax, jnp, arrays_only=False):
  """What fn binds given float32 arrays, keeping only the primitives it
  also binds given Python floats: a kernel calls these functions on both,
  and what only an array operand binds (`jnp.array(x)` copies a traced x,
  while `jnp.array(0.0)` binds nothing) depends on the call."""
  for shape in _SHAPES:
    for arity in (1, 2, 3):
      arrays, scalars = _arguments(fn, shape, arity, jnp)
      found = _bound(fn, jax, arrays)
      if found is None:
        continue
      if arrays_only:
        return found
      on_scalars = _bound(fn, jax, scalars, constants=True)
      if on_scalars is None:
        return found
      names = {p if isinstance(p, str) else p.name for p in on_scalars}
      return [p for p in found if (p if isinstance(p, str) else p.name) in names]
  return None


def _flag_variants(fn):
  """(keyword text, function) for each boolean keyword of fn given the
  value it does not default to: `jax.nn.gelu(approximate=False)` binds erf
  where the default binds tanh."""
  try:
    params = inspect.signature(fn).parameters.values()
  except (TypeError, ValueError):
    return []
  out = []
  for p in params:
    if isinstance(p.default, bool) and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
      flipped = not p.default
      out.append((f"{p.name}={flipped}",
                  lambda *a, _f=fn, _k=p.name, _v=flipped: _f(*a, **{_k: _v})))
  return out


def numeric_api_binds(semantics_of, has_cpu_lowering):
  """({api: {"binds": [primitive name, ...] in equation order}}, {primitive name:
  {"mosaicGpuLowering": [...], "cpuLowering": bool}}); `semantics_of(prim)`
  gives the Mosaic GPU semantics a primitive has rules for ([] none; None:
  registry missing), `has_cpu_lowering(prim)` whether XLA lowers it for the
  CPU (both interpret modes end there)."""
  jax = _try_import("jax")
  jnp = _try_import("jax.numpy")
  if jax is None or jnp is None:
    return None, None
  apis, prims = {}, {}

  def record(key, found):
    if not found:
      return
    bound = {p.name: semantics_of(p) for p in found if not isinstance(p, str)}
    order = [p.name for p in found if not isinstance(p, str)]
    cpu = {p.name: has_cpu_lowering(p) for p in found if not isinstance(p, str)}
    # Only what some compiled kernel cannot lower: a primitive without a
    # rule for both Lane and Warpgroup lowering (user Warpgroup threads).
    if not any(s is not None and not (_FULL <= set(s)) for s in bound.values()):
      return
    apis[key] = {"binds": list(dict.fromkeys(order))}
    for prim_name, s in bound.items():
      prims[prim_name] = {"mosaicGpuLowering": s, "cpuLowering": cpu[prim_name]}

  for alias, module_name in sorted(NUMERIC_MODULES.items()):
    module = _try_import(module_name)
    if module is None:
      continue
    for name in _public_names(module):
      value = getattr(module, name, None)
      if not callable(value) or inspect.isclass(value) or inspect.ismodule(value):
        continue
      record(f"{alias}.{name}", _trace(value, jax, jnp))
      # A flag that changes what it binds: recorded as `name(flag=value)`
      # when that binds a primitive the default does not.
      if alias == "jax.nn":
        default = {p.name for p in (_trace(value, jax, jnp) or []) if not isinstance(p, str)}
        for text, variant in _flag_variants(value):
          found = _trace(variant, jax, jnp)
          if found and {p.name for p in found if not isinstance(p, str)} - default:
            record(f"{alias}.{name}({text})", found)
  for key, fn in OPERATORS.items():
    record(key, _trace(fn, jax, jnp, arrays_only=True))
  return apis, prims
