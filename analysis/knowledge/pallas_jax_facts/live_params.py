"""Tables of an imported JAX beside the primitives: error templates found at
their raise sites, InterpretGPUParams' fields and Mosaic GPU's defaults."""

from __future__ import annotations

import ast
import dataclasses
import enum

from . import config
from .live_objects import _module_path, _qualname, _source_of, _try_import
from .source_ast import _exception_name, _raise_message, _template_regex


def error_templates():
  out = {}
  for key, (module_name, anchor) in sorted(config.ERROR_ANCHORS.items()):
    entry = {"module": module_name, "file": _module_path(module_name), "anchor": anchor, "found": False}
    module = _try_import(module_name)
    source = _source_of(module) if module else None
    if source is not None:
      for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Raise):
          continue
        message = _raise_message(node)
        if message and anchor in message:
          entry.update(found=True, template=message, regex=_template_regex(message),
                       exception=_exception_name(node), line=node.lineno)
          break
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
  (Lane in 0.10, Warpgroup from 0.11): the analysis follows it."""
  out = {"loweringSemantics": None}
  core = _try_import("jax._src.pallas.mosaic_gpu.core")
  cls = getattr(core, "CompilerParams", None) if core else None
  if cls is not None and dataclasses.is_dataclass(cls):
    for f in dataclasses.fields(cls):
      if f.name == "lowering_semantics" and isinstance(f.default, enum.Enum):
        out["loweringSemantics"] = f.default.name
  return out
