"""Facts of an imported JAX about higher-order primitives in compiled Mosaic
GPU kernels: the primitive each of JAX's higher-order APIs binds, and the
primitives Mosaic GPU's resource estimation has an estimator for."""

from __future__ import annotations

from . import config
from .live_binds import api_binds
from .live_objects import _try_import, _unwrap


def higher_order_api_binds(index):
  """{api: [primitive ids]}: what each config.HIGHER_ORDER_APIS function
  binds, directly or through the functions it calls (bytecode scan)."""
  out = {}
  for api, (module_name, attr) in sorted(config.HIGHER_ORDER_APIS.items()):
    module = _try_import(module_name)
    fn = getattr(module, attr, None) if module is not None else None
    if isinstance(fn, type):
      fn = vars(fn).get("__call__")  # jax.custom_jvp binds when called
    if fn is None:
      continue
    saved = config.FOLLOW_PREFIXES
    own = getattr(_unwrap(fn), "__module__", None)
    config.FOLLOW_PREFIXES = saved + ((own,) if own else ())
    try:
      direct, transitive = api_binds(fn, index)
    finally:
      config.FOLLOW_PREFIXES = saved
    out[api] = sorted(direct | transitive)
  return out


def resource_estimators():
  """The names of the primitives `_register_resource_estimator` registered
  in Mosaic GPU's lowering (`_resource_estimators`), sorted; None when this
  JAX has no such registry. Names, not table keys: most are lax primitives
  the table does not otherwise describe, and JAX's message names the
  primitive by name."""
  lowering = _try_import("jax._src.pallas.mosaic_gpu.lowering")
  registry = getattr(lowering, "_resource_estimators", None) if lowering is not None else None
  if not isinstance(registry, dict):
    return None
  return sorted({getattr(prim, "name", str(prim)) for prim in registry})
