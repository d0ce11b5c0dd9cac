"""Which backend compiles a ``pl.pallas_call`` that gives no compiler params
on a GPU, read from ``pallas_call.py``'s GPU lowering rule and JAX's config.

JAX 0.10.2 asks the ``jax_pallas_use_mosaic_gpu`` flag (default from the
``JAX_PALLAS_USE_MOSAIC_GPU`` environment variable, itself defaulting to
true): Mosaic GPU when it is set, else Triton. JAX 0.11.2 has no such flag:
without params the rule makes Triton's ``CompilerParams()``. The analysis
judges the compiled path of Mosaic GPU launches only, so this decides
whether such a launch is its to judge.

Both extractors call ``pallas_call_gpu_default(pallas_call_tree,
config_tree)`` with the parsed modules, so both write the same entry:
``{"flag": name, "env": variable, "default": bool, "otherwise": "triton"}``
when a flag decides, ``{"flag": None, "backend": "triton"}`` when the rule
always picks Triton, or None when the rule is not recognised.
"""

from __future__ import annotations

import ast


def _gpu_lowering(tree):
  for node in ast.walk(tree):
    if isinstance(node, ast.FunctionDef) and node.name == "gpu_lowering":
      return node
  return None


def _flag_read(fn):
  """The config flag the rule reads (`config.<flag>.value`), or None."""
  for node in ast.walk(fn):
    if (isinstance(node, ast.Attribute) and node.attr == "value"
        and isinstance(node.value, ast.Attribute) and node.value.attr.startswith("jax_pallas_")):
      return node.value.attr
  return None


def _flag_default(config_tree, flag):
  """(environment variable, default) of `flag = bool_state(name=..., default=bool_env(ENV, D))`."""
  for node in ast.walk(config_tree):
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == flag
            and isinstance(node.value, ast.Call)):
      continue
    for kw in node.value.keywords:
      if kw.arg != "default":
        continue
      v = kw.value
      if isinstance(v, ast.Constant) and isinstance(v.value, bool):
        return None, v.value
      if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "bool_env"
          and len(v.args) == 2 and all(isinstance(a, ast.Constant) for a in v.args)):
        return v.args[0].value, bool(v.args[1].value)
  return None


def _makes_triton_params_without_params(fn):
  """Whether `if compiler_params is None:` sets Triton's CompilerParams()."""
  for node in ast.walk(fn):
    if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "compiler_params"
            and any(isinstance(op, ast.Is) for op in node.test.ops)):
      continue
    for inner in ast.walk(node):
      if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
          and inner.func.attr == "CompilerParams" and isinstance(inner.func.value, ast.Name)
          and "triton" in inner.func.value.id):
        return True
  return False


def pallas_call_gpu_default(pallas_call_tree, config_tree):
  fn = _gpu_lowering(pallas_call_tree) if pallas_call_tree is not None else None
  if fn is None:
    return None
  flag = _flag_read(fn)
  if flag is not None:
    found = _flag_default(config_tree, flag) if config_tree is not None else None
    if found is None:
      return None
    env, default = found
    return {"flag": flag, "env": env, "default": default, "otherwise": "triton"}
  if _makes_triton_params_without_params(fn):
    return {"flag": None, "backend": "triton"}
  return None
