"""Which scratch dtypes GPU interpret mode allocates itself
("gpuInterpretAllocates"), read from its source by both extractors.

GPU interpret mode fills every scratch buffer with `uninitialized_memory`
("nan" by default), which has no value for barrier-like dtypes
("NotImplementedError: nan + barrier"), except the dtypes its allocation code
handles apart: an `if isinstance(dtype, <module>.<Class>):` whose body calls
a `call_allocate_*barrier*` callback. JAX 0.10.2's kernel interpreter
(`JaxprInterpreter`, the scoped allocations `plgpu.kernel` makes) handles
`BarrierType`; 0.11.2's also `ClusterBarrierType`
(`call_allocate_cluster_barriers`); a `pl.pallas_call`'s scratch
(interpret_pallas_call.py) handles none. The class's `name` (what JAX prints
in the error: "barrier", "cluster_barrier") is read from its definition in
jax._src.pallas.mosaic_gpu.core.
"""

from __future__ import annotations

import ast

MODULES = {
    "kernel": "jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret",
    "pallasCall": "jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call",
}
CORE = "jax._src.pallas.mosaic_gpu.core"


def _dtype_names(core):
  """{class name: its `name` class variable} of the core module."""
  out = {}
  for node in core.body if core is not None else ():
    if not isinstance(node, ast.ClassDef):
      continue
    for stmt in node.body:
      target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
          stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
      value = getattr(stmt, "value", None)
      if (isinstance(target, ast.Name) and target.id == "name" and isinstance(value, ast.Constant)
          and isinstance(value.value, str)):
        out[node.name] = value.value
  return out


def _allocated_classes(tree):
  """Class names tested by `isinstance(_, X)` in an `if` whose own body calls
  an allocate-barriers callback."""
  found = []
  for node in ast.walk(tree):
    if not isinstance(node, ast.If):
      continue
    test = node.test
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2):
      continue
    cls = test.args[1]
    name = cls.attr if isinstance(cls, ast.Attribute) else cls.id if isinstance(cls, ast.Name) else None
    if name is None:
      continue
    calls = [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    for call in calls:
      callee = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
      if callee.startswith("call_allocate_") and "barrier" in callee:
        found.append(name)
        break
  return found


def gpu_interpret_allocates(tree_of):
  """{"kernel": [dtype names], "pallasCall": [...]}; a key is absent when
  its module is not in this JAX (then nothing is known about it)."""
  names = _dtype_names(tree_of(CORE))
  out = {}
  for key, module in MODULES.items():
    tree = tree_of(module)
    if tree is None:
      continue
    out[key] = sorted({names[c] for c in _allocated_classes(tree) if c in names})
  return out
