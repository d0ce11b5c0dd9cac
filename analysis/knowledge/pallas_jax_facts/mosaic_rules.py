"""The numbers of the Mosaic GPU shape, layout and copy rules (issue 17:
PLS006 WGMMA, PLS007 tiling/swizzle, PLS008 copies), read from JAX's source.

Shared by both extractors: ``mosaic_gpu_rules(tree_of, ...)`` takes a
function that returns a JAX module's parsed source (or None) by module name;
the import-based extractor parses ``inspect.getsource`` of the imported
module, the static one gives the tree it parsed. Nothing here imports JAX, so both produce
the same table (test_knowledge_static.py compares them).

Each rule is found by an anchor: a piece of the message JAX raises. The
rule's numbers are the integer literals of the ``if`` test that guards that
``raise`` (or of one named assignment, or a module constant the test names),
in source order, given names by ``roles``. When a rule or its numbers cannot
be found (another JAX moved them), the entry says ``found: false`` and the
analysis reports nothing for that rule: a missing fact is never guessed.
"""

from __future__ import annotations

import ast

WGMMA = "jax.experimental.mosaic.gpu.wgmma"
LAUNCH = "jax.experimental.mosaic.gpu.launch_context"
PL_PRIMS = "jax._src.pallas.mosaic_gpu.primitives"
PL_CORE = "jax._src.pallas.mosaic_gpu.core"

# key: (module, anchor in the raised message, roles of the test's integers,
#       where the integers are: "test" | "assign:<name>" | "const:<name>")
RULES = {
    # PLS006: WGMMA
    "wgmmaAccumulatorShape": (WGMMA, "WGMMA requires m and n to be multiples of", ["rowsMultiple", "colsMultiple"], "test"),
    "wgmmaN": (WGMMA, "N must be a multiple of", ["nMax", "nMultiple"], "test"),
    "wgmmaM": (WGMMA, "M must be a multiple of", ["mMultiple"], "assign:m_group_elems"),
    "wgmmaTranspose": (WGMMA, "WGMMA supports transposes", ["transposeItemsize"], "assign:supports_transpose"),
    "wgmmaLhsTiling": (PL_PRIMS, "WGMMA lhs tiling does not fit swizzle", ["tileRows"], "test"),
    "wgmmaRhsTiling": (PL_PRIMS, "WGMMA rhs tiling does not fit swizzle", ["tileRows"], "test"),
    "wgmmaSwizzleMatch": (PL_PRIMS, "WGMMA rhs swizzle must match lhs swizzle", [], "test"),
    # PLS007: transforms
    "swizzleAllowed": (PL_CORE, "is not supported. Only", ["*allowed"], "test"),
    "swizzleMinorTile": (PL_CORE, "requires the trailing dimension to be of size", ["bitsPerByte"], "assign:swizzle_elems"),
    # PLS008: copies
    "laneCopyBytes": (PL_PRIMS, "Only copies transferring a number of bytes divisible", ["bytesMultiple"], "const:WARPGROUP_SIZE"),
    "tmaGmemStride": (LAUNCH, "requires all GMEM strides except the last one", ["bitsMultiple"], "test"),
    "tmaLastDimBits": (LAUNCH, "number of bits copied along the last", ["bitsMultiple"], "test"),
    "tmaBoxMax": (LAUNCH, "Async copies only support copying <=", ["maxElems"], "test"),
}
# The accumulator dtypes WGMMA accepts per operand dtype: the if/elif chain
# over `element_type` in wgmma(); MLIR type names as the chain spells them.
_MLIR_NAMES = {
    "f32": "float32", "F32Type": "float32", "BF16Type": "bfloat16", "bf16": "bfloat16",
    "f16": "float16", "F16Type": "float16", "Float8E5M2Type": "float8_e5m2",
    "Float8E4M3FNType": "float8_e4m3fn", "i8": "int8", "i32": "int32",
}


def _ints(node):
  """Integer literals of an expression in source order, leaving out 0 and
  indices/slices (``x[-1]``, ``s[:-1]``)."""
  out = []

  def visit(n):
    if isinstance(n, ast.Subscript):
      visit(n.value)
      return
    if isinstance(n, ast.Constant) and type(n.value) is int and n.value != 0:
      out.append(n.value)
    for child in ast.iter_child_nodes(n):
      visit(child)

  visit(node)
  return out


def _parents(tree):
  parents = {}
  for node in ast.walk(tree):
    for child in ast.iter_child_nodes(node):
      parents[child] = node
  return parents


def _message(raise_node, template_of):
  exc = raise_node.exc
  if isinstance(exc, ast.Call) and exc.args:
    return template_of(exc.args[0])
  return None


def _enclosing(node, parents, kind):
  while node in parents:
    node = parents[node]
    if isinstance(node, kind):
      return node
  return None


def _module_constant(tree, name):
  for stmt in tree.body:
    targets = []
    if isinstance(stmt, ast.Assign):
      targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
      targets, value = [stmt.target], stmt.value
    if any(isinstance(t, ast.Name) and t.id == name for t in targets):
      if isinstance(value, ast.Constant) and type(value.value) is int:
        return value.value
  return None


def _numbers(raise_node, parents, tree, where):
  if where == "test":
    guard = _enclosing(raise_node, parents, ast.If)
    return _ints(guard.test) if guard is not None else None
  kind, name = where.split(":", 1)
  if kind == "const":
    value = _module_constant(tree, name)
    return None if value is None else [value]
  func = _enclosing(raise_node, parents, ast.FunctionDef)
  for node in ast.walk(func) if func is not None else ():
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
      return _ints(node.value)
  return None


def _rule(tree, module, anchor, roles, where, template_of, exception_of):
  entry = {"module": module, "anchor": anchor, "found": False}
  parents = _parents(tree)
  for node in ast.walk(tree):
    if not isinstance(node, ast.Raise):
      continue
    message = _message(node, template_of)
    if not message or anchor not in message:
      continue
    entry.update(template=message, exception=exception_of(node), line=node.lineno)
    numbers = _numbers(node, parents, tree, where)
    if numbers is None:
      return entry
    if roles == ["*allowed"]:
      entry.update(found=True, allowed=sorted(numbers))
    elif len(numbers) == len(roles):
      entry.update(found=True, **dict(zip(roles, numbers)))
    return entry
  return entry


def _names(node):
  return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
          if isinstance(n, (ast.Name, ast.Attribute))}


def _accumulators(tree, template_of, exception_of):
  """{operand dtype: {accumulators, template, exception}} from wgmma()'s
  if/elif chain over element_type."""
  func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "wgmma"), None)
  out = {}
  if func is None:
    return out
  chain = next((n for n in ast.walk(func) if isinstance(n, ast.If)
                and "element_type" in _names(n.test) and any(
                    isinstance(r, ast.Raise) and "accumulators" in (_message(r, template_of) or "")
                    for r in ast.walk(n))), None)
  while chain is not None:
    operands = sorted({_MLIR_NAMES[n] for n in _names(chain.test) if n in _MLIR_NAMES})
    inner = next((s for s in chain.body if isinstance(s, ast.If)
                  and "mlir_dtype" in _names(s.test)), None)
    raise_node = next((r for r in ast.walk(inner) if isinstance(r, ast.Raise)), None) if inner else None
    if raise_node is not None:
      accepted = set()
      for cmp in ast.walk(inner.test):
        if isinstance(cmp, ast.Compare) and all(isinstance(o, ast.NotEq) for o in cmp.ops):
          accepted |= {_MLIR_NAMES[n] for c in cmp.comparators for n in _names(c) if n in _MLIR_NAMES}
      for operand in operands:
        out[operand] = {"accumulators": sorted(accepted), "template": _message(raise_node, template_of),
                        "exception": exception_of(raise_node), "line": raise_node.lineno}
    orelse = chain.orelse
    chain = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
  return out


def _bare_assert(tree, class_name):
  """A class's transform_type that checks with a bare assert (no message)."""
  for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef) and node.name == class_name:
      for sub in ast.walk(node):
        if isinstance(sub, ast.Assert) and sub.msg is None and "all" in _names(sub.test):
          return {"module": PL_CORE, "found": True, "exception": "AssertionError", "template": "",
                  "line": sub.lineno}
  return {"module": PL_CORE, "found": False}


def mosaic_gpu_rules(tree_of, template_of, exception_of):
  """The rules table. `tree_of(module)` -> ast.Module or None;
  `template_of(ast node)` renders a message; `exception_of(raise node)`
  names the exception (the reference extractor's helpers)."""
  trees = {}
  for module in sorted({spec[0] for spec in RULES.values()}):
    trees[module] = tree_of(module)
  rules = {}
  for key, (module, anchor, roles, where) in sorted(RULES.items()):
    tree = trees.get(module)
    rules[key] = (_rule(tree, module, anchor, roles, where, template_of, exception_of) if tree is not None
                  else {"module": module, "anchor": anchor, "found": False})
  core = trees.get(PL_CORE)
  rules["tilingDivides"] = _bare_assert(core, "TilingTransform") if core is not None else {"module": PL_CORE,
                                                                                          "found": False}
  wgmma = trees.get(WGMMA)
  rules["wgmmaAccumulatorDtypes"] = _accumulators(wgmma, template_of, exception_of) if wgmma is not None else {}
  return rules
