"""The numbers Mosaic GPU's lowering sizes shared memory and threads with
(PLS005/PLS009), read from JAX's parsed source. Nothing here imports JAX:
both extractors give it the module trees they parsed (the import-based one
from ``inspect.getsource``, the static one from the files), so both produce
the same ``mosaicGpuResources``."""

from __future__ import annotations

import ast

RESOURCE_MODULES = ("jax._src.pallas.mosaic_gpu.core", "jax.experimental.mosaic.gpu.utils",
                    "jax.experimental.mosaic.gpu.core")


def const_int(node):
  """An int literal expression (`227 * 1024`, `2048 // 128`), else None."""
  if isinstance(node, ast.Constant) and type(node.value) is int:
    return node.value
  if isinstance(node, ast.BinOp):
    a, b = const_int(node.left), const_int(node.right)
    if a is None or b is None:
      return None
    ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
           ast.FloorDiv: lambda: a // b if b else None, ast.Pow: lambda: a ** b if 0 <= b < 64 else None}
    fn = ops.get(type(node.op))
    return fn() if fn else None
  return None


def default_smem_limit_of(func):
  """The default of `getattr(device, "shared_memory_per_block_optin", X)`
  in Mosaic GPU's `_launch` (the limit without a GPU)."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "shared_memory_per_block_optin"):
      return const_int(node.args[2])
  return None


def max_mosaic_threads_of(func):
  """`max_mosaic_threads = 2048 // 128` in plgpu.Mesh.__post_init__."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == "max_mosaic_threads"):
      return const_int(node.value)
  return None


def compiler_params_int_defaults(class_node):
  """{field: int default} of the CompilerParams dataclass body."""
  out = {}
  for stmt in class_node.body:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
      v = const_int(stmt.value)
      if v is not None:
        out[stmt.target.id] = v
  return out


def _function_in(tree, qualname):
  """The def `name` or `Class.name` at module level of an ast tree."""
  parts = qualname.split(".")
  body = tree.body
  node = None
  for part in parts:
    node = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name == part), None)
    if node is None:
      return None
    body = node.body
  return node


def mosaic_gpu_resources_from(trees):
  """The numbers Mosaic GPU's lowering sizes shared memory and threads with
  (PLS005/PLS009), read from the parsed modules `trees` = {module: ast}:
  the SMEM alignment of every allocation, the bytes of one mbarrier, the
  shared-memory limit without a GPU, the CompilerParams defaults, and the
  most warpgroups a kernel may ask for."""
  out = {"smemAlignment": None, "mbarrierBytes": None, "defaultSmemLimit": None,
         "maxConcurrentStepsDefault": None, "reductionScratchBytesDefault": None, "maxMosaicThreads": None}

  def module_const(module, name):
    tree = trees.get(module)
    for stmt in tree.body if tree else ():
      if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
          and stmt.targets[0].id == name):
        return const_int(stmt.value)
    return None

  out["smemAlignment"] = module_const("jax._src.pallas.mosaic_gpu.core", "SMEM_ALIGNMENT")
  out["mbarrierBytes"] = module_const("jax.experimental.mosaic.gpu.utils", "MBARRIER_BYTES")
  core = trees.get("jax._src.pallas.mosaic_gpu.core")
  params = _function_in(core, "CompilerParams") if core else None
  if params is not None:
    defaults = compiler_params_int_defaults(params)
    out["maxConcurrentStepsDefault"] = defaults.get("max_concurrent_steps")
    out["reductionScratchBytesDefault"] = defaults.get("reduction_scratch_bytes")
  mesh_init = _function_in(core, "Mesh.__post_init__") if core else None
  if mesh_init is not None:
    out["maxMosaicThreads"] = max_mosaic_threads_of(mesh_init)
  mcore = trees.get("jax.experimental.mosaic.gpu.core")
  launch = _function_in(mcore, "_launch") if mcore else None
  if launch is not None:
    out["defaultSmemLimit"] = default_smem_limit_of(launch)
  return out
