"""The numbers Mosaic GPU's lowering sizes shared memory and threads with
(PLS005/PLS009), read from JAX's parsed source. Nothing here imports JAX:
both extractors give it the module trees they parsed (the import-based one
from ``inspect.getsource``, the static one from the files), so both produce
the same ``mosaicGpuResources``."""

from __future__ import annotations

import ast

RESOURCE_MODULES = ("jax._src.pallas.mosaic_gpu.core", "jax.experimental.mosaic.gpu.utils",
                    "jax.experimental.mosaic.gpu.core", "jax.experimental.mosaic.gpu.tcgen05",
                    "jax._src.pallas.mosaic_gpu.lowering", "jax._src.pallas.mosaic_gpu.pipeline")


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


def align_to_constant_of(func, attribute):
  """`align_to(self.<attribute>, 8)` in Resources.__post_init__ -> 8."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "align_to"
        and len(node.args) == 2 and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == attribute):
      return const_int(node.args[1])
  return None


def max_floor_of(func):
  """`max(32, 1 << ...)` in tcgen05.tmem_alloc_exact_ncols -> 32 (the fewest
  columns one TMEM allocation takes)."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "max"
        and len(node.args) == 2 and isinstance(node.args[1], ast.BinOp) and isinstance(node.args[1].op, ast.LShift)):
      return const_int(node.args[0])
  return None


def tmem_address_bytes_of(func):
  """`case TMEM(_): size += 4` in mosaic/gpu/core.py _smem_tree_size -> 4
  (the SMEM word that holds a TMEM allocation's address)."""
  for node in ast.walk(func):
    if not isinstance(node, ast.match_case):
      continue
    pattern = node.pattern
    if (isinstance(pattern, ast.MatchClass) and getattr(pattern.cls, "id", None) == "TMEM"):
      for stmt in node.body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
          return const_int(stmt.value)
  return None


def keyword_default_of(func, name):
  """The int default of keyword-only parameter `name` of a def."""
  args = func.args
  for arg, default in zip(args.kwonlyargs, args.kw_defaults):
    if arg.arg == name and default is not None:
      return const_int(default)
  positional = args.posonlyargs + args.args
  for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
    if arg.arg == name:
      return const_int(default)
  return None


def mosaic_gpu_resources_from(trees):
  """The numbers Mosaic GPU's lowering sizes shared memory and threads with
  (PLS005/PLS009), read from the parsed modules `trees` = {module: ast}:
  the SMEM alignment of every allocation, the bytes of one mbarrier, the
  shared-memory limit without a GPU, the CompilerParams defaults, and the
  most warpgroups a kernel may ask for."""
  out = {"smemAlignment": None, "mbarrierBytes": None, "defaultSmemLimit": None,
         "maxConcurrentStepsDefault": None, "reductionScratchBytesDefault": None, "maxMosaicThreads": None,
         "tmemRows": None, "tmemMaxCols": None, "tmemColAlignment": None, "tmemMinAllocCols": None,
         "tmemAddressBytes": None, "maxConcurrentStepsWarpSpecializedDefault": None}

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
  # Blackwell tensor memory (the TMEM part of PLS005).
  out["tmemRows"] = module_const("jax.experimental.mosaic.gpu.tcgen05", "TMEM_ROWS")
  out["tmemMaxCols"] = module_const("jax.experimental.mosaic.gpu.tcgen05", "TMEM_MAX_COLS")
  tcgen05 = trees.get("jax.experimental.mosaic.gpu.tcgen05")
  exact = _function_in(tcgen05, "tmem_alloc_exact_ncols") if tcgen05 else None
  if exact is not None:
    out["tmemMinAllocCols"] = max_floor_of(exact)
  lowering = trees.get("jax._src.pallas.mosaic_gpu.lowering")
  post_init = _function_in(lowering, "Resources.__post_init__") if lowering else None
  if post_init is not None:
    out["tmemColAlignment"] = align_to_constant_of(post_init, "tmem_scratch_cols")
  tree_size = _function_in(mcore, "_smem_tree_size") if mcore else None
  if tree_size is not None:
    out["tmemAddressBytes"] = tmem_address_bytes_of(tree_size)
  pipeline = trees.get("jax._src.pallas.mosaic_gpu.pipeline")
  ws = _function_in(pipeline, "emit_pipeline_warp_specialized") if pipeline else None
  if ws is not None:
    out["maxConcurrentStepsWarpSpecializedDefault"] = keyword_default_of(ws, "max_concurrent_steps")
  return out
