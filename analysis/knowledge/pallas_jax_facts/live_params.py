"""Tables of an imported JAX beside the primitives: error templates found at
their raise sites, InterpretGPUParams' fields and Mosaic GPU's defaults."""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect

from . import config, gpu_backend, mosaic_resources, mosaic_rules
from .live_objects import _module_path, _qualname, _source_of, _try_import
from .source_ast import _exception_name, _string_template, raise_template_in


def error_templates():
  out = {}
  for key, (module_name, anchor) in sorted(config.ERROR_ANCHORS.items()):
    entry = {"module": module_name, "file": _module_path(module_name), "anchor": anchor, "found": False}
    module = _try_import(module_name)
    source = _source_of(module) if module else None
    if source is not None and (found := raise_template_in(ast.parse(source), anchor)):
      entry.update(found)
    out[key] = entry
  return out


def _default_repr(field):
  if field.default is not dataclasses.MISSING:
    value = field.default
  elif field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
    return "<factory>"
  else:
    return None
  if isinstance(value, enum.Enum):
    return f"{type(value).__name__}.{value.name}"
  if isinstance(value, (bool, int, float, str)) or value is None:
    return value
  return repr(value)


def interpret_gpu_params():
  info = {"available": False, "importPaths": [], "fields": [], "contextManagers": []}
  cls = None
  for module_name, attr in config.INTERPRET_PARAMS_PATHS:
    module = _try_import(module_name)
    value = getattr(module, attr, None) if module else None
    if value is not None:
      info["importPaths"].append(f"{module_name}.{attr}")
      cls = cls or value
  if cls is not None and dataclasses.is_dataclass(cls):
    info["available"] = True
    info["class"] = _qualname(cls)
    info["fields"] = [
        {"name": f.name, "default": _default_repr(f), "type": str(f.type)}
        for f in dataclasses.fields(cls)
    ]
    info["hasInlineMgpuOption"] = any(f.name == "inline_mgpu" for f in dataclasses.fields(cls))
  for module_name, attr in config.GPU_MODE_CONTEXTS:
    module = _try_import(module_name)
    if module is not None and getattr(module, attr, None) is not None:
      info["contextManagers"].append(f"{module_name}.{attr}")
  return info


def mosaic_gpu_defaults():
  """The lowering semantics a kernel gets when its CompilerParams do not say
  (Lane in 0.10, Warpgroup from 0.11), and the backend of a pallas_call
  without compiler params on a GPU (gpu_backend.py): the analysis follows
  both."""
  out = {"loweringSemantics": None}
  core = _try_import("jax._src.pallas.mosaic_gpu.core")
  cls = getattr(core, "CompilerParams", None) if core else None
  if cls is not None and dataclasses.is_dataclass(cls):
    for f in dataclasses.fields(cls):
      if f.name == "lowering_semantics" and isinstance(f.default, enum.Enum):
        out["loweringSemantics"] = f.default.name
  out["pallasCallWithoutParams"] = gpu_backend.pallas_call_gpu_default(
      _parsed_module("jax._src.pallas.pallas_call"), _parsed_module("jax._src.config"))
  return out


# ---- Mosaic GPU's rule numbers and resources (PLS005-PLS009) -----------------


def _parsed_module(module_name):
  module = _try_import(module_name)
  source = _source_of(module) if module else None
  try:
    return ast.parse(source) if source else None
  except SyntaxError:
    return None


def mosaic_gpu_rules():
  """Issue 17's shape, layout and copy rules (mosaic_rules.py)."""
  return mosaic_rules.mosaic_gpu_rules(_parsed_module, _string_template, _exception_name)


def mosaic_gpu_resources():
  """mosaic_resources.mosaic_gpu_resources_from the installed modules' source; the values that
  exist at import time are checked against the parsed ones."""
  trees = {}
  for name in mosaic_resources.RESOURCE_MODULES:
    module = _try_import(name)
    try:
      trees[name] = ast.parse(inspect.getsource(module)) if module else None
    except (OSError, TypeError, SyntaxError):
      trees[name] = None
  out = mosaic_resources.mosaic_gpu_resources_from({k: v for k, v in trees.items() if v is not None})
  core = _try_import("jax._src.pallas.mosaic_gpu.core")
  utils = _try_import("jax.experimental.mosaic.gpu.utils")
  for key, module, attr in (("smemAlignment", core, "SMEM_ALIGNMENT"), ("mbarrierBytes", utils, "MBARRIER_BYTES")):
    live = getattr(module, attr, None) if module else None
    if live is not None and out[key] != live:
      out[key] = live  # computed at import in some version: the live value wins
  return out
