"""The bundled knowledge table is current, and its key facts hold in real JAX."""
import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOWLEDGE = os.path.join(ROOT, "analysis", "knowledge")
BUNDLED = os.path.join(KNOWLEDGE, f"jax-{jax.__version__}.json")
sys.path.insert(0, KNOWLEDGE)
import extract_knowledge  # noqa: E402
from pallas_jax_facts import config as extractor_config  # noqa: E402


@pytest.fixture(scope="module")
def table():
  with open(BUNDLED, encoding="utf-8") as f:
    return json.load(f)


def test_bundled_table_is_not_stale():
  fresh = subprocess.run([sys.executable, os.path.join(KNOWLEDGE, "extract_knowledge.py")],
                         capture_output=True, text=True, check=True).stdout
  with open(BUNDLED, encoding="utf-8") as f:
    assert fresh == f.read(), "re-run: python analysis/knowledge/extract_knowledge.py -o " + BUNDLED


def test_versions_recorded(table):
  assert table["jax_version"] == jax.__version__
  assert table["schemaVersion"] == extract_knowledge.SCHEMA_VERSION
  assert table["python"].count(".") == 2


def _interpret(kernel, x, interpret):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)


def _ref_region(ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r
  region(ref)


def test_inline_mgpu_discharge_raises(table):
  fact = table["primitives"]["inline_mgpu_p"]["discharge"]
  assert fact["status"] == "raises"

  def kernel(x_ref, o_ref):
    _ref_region(o_ref)
    o_ref[...] = x_ref[...]

  with pytest.raises(NotImplementedError) as err:
    _interpret(kernel, jnp.ones((128,), jnp.float32), True)
  assert str(err.value) == fact["message"]


def test_atomic_store_discharge_raises_on_its_unpacking(table):
  # The rule's first line unpacks four arguments where plgpu.atomic_add
  # binds three: read from the AST (source_ast.unpack_mismatch_of), raised
  # by real JAX with the same message for every atomic op.
  fact = table["primitives"]["mgpu_atomic_store"]["discharge"]
  assert fact["status"] == "raises" and fact["exception"] == "ValueError"

  def kernel(x_ref, _o_in, o_ref):
    plgpu.atomic_add(o_ref.at[1], x_ref[0])

  gmem = plgpu.BlockSpec(memory_space=plgpu.GMEM)
  x = jnp.ones((2, 128), jnp.float32)
  with pytest.raises(ValueError) as err:
    pl.pallas_call(kernel, in_specs=[gmem, gmem], out_specs=gmem,
                   out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                   input_output_aliases={1: 0}, interpret=True)(x, jnp.zeros_like(x))
  assert str(err.value) == fact["message"]


def test_unpack_mismatch_needs_every_binder_to_agree():
  import ast
  from pallas_jax_facts.source_ast import unpack_error_message, unpack_mismatch_of
  rule = ast.parse('def rule(in_avals, out_avals, *args_flat, args_tree):\n'
                   '  """doc"""\n  a, b, c, d = args_tree.unflatten(args_flat)\n').body[0]
  one = ("def f(x):\n  args_flat, args_tree = tree_util.tree_flatten((x, 1, 2))\n"
         "  p.bind(*args_flat, args_tree=args_tree)\n")
  other = ("def g(x):\n  args_flat, args_tree = tree_util.tree_flatten((x, 1, 2, 3))\n"
           "  p.bind(*args_flat, args_tree=args_tree)\n")
  assert unpack_mismatch_of(rule, ast.parse(one), "p") == (4, 3)
  assert unpack_mismatch_of(rule, ast.parse(one + other), "p") is None  # binders disagree
  assert unpack_mismatch_of(rule, ast.parse(other), "p") is None  # they match
  assert unpack_mismatch_of(rule, ast.parse(one), "q") is None  # another primitive
  assert unpack_error_message(4, 3).startswith("not enough values to unpack (expected 4")
  assert unpack_error_message(2, 3).startswith("too many values to unpack")


def test_indexing_only_callbacks_and_the_arms_that_reach_them():
  import ast
  from pallas_jax_facts.source_ast import arms_reaching_callbacks, indexing_only_callbacks
  callbacks = ast.parse(
      "def _validate(ts):\n  raise ValueError(f'Unsupported transform: {ts}')\n"
      "def get(ref_transforms):\n  _validate(ref_transforms)\n  return to_range(ref_transforms)\n"
      "def wgmma(a_transforms):\n  return u.to_range(a_transforms)\n")
  assert indexing_only_callbacks(callbacks) == {"wgmma": "indices"}
  interpreter = ast.parse(
      "class JaxprInterpreter:\n"
      "  def _interpret_wgmma(self):\n    return cb.wgmma\n"
      "  def _interpret_cond(self):\n    return self._interpret_wgmma()\n"
      "  def interpret(self, eqn):\n    match eqn.primitive:\n"
      "      case p.wgmma_p:\n        self._interpret_wgmma()\n"
      "      case p.cond_p:\n        self._interpret_cond()\n"
      "      case p.get_p:\n        cb.get\n").body[0]
  # cond reaches wgmma only through the interpreter's recursion: not its own.
  arms = [ast.unparse(p) for p in arms_reaching_callbacks(interpreter, {"wgmma": "indices"})]
  assert arms == ["p.wgmma_p"]


def test_api_binds_inline_mgpu_p_by_tracing(table):
  def kernel(x_ref, o_ref):
    _ref_region(o_ref)

  x = jnp.ones((128,), jnp.float32)
  jaxpr = jax.make_jaxpr(lambda x: pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x))(x)
  body = jaxpr.jaxpr.eqns[0].params["jaxpr"]
  traced = {e.primitive.name for e in body.eqns}
  assert set(table["apis"]["plgpu.inline_mgpu"]["binds"]) <= traced


def test_missing_cpu_lowering_template(table):
  fact = table["primitives"]["inline_mgpu_p"]
  assert fact["cpuLowering"] is False
  template = table["errorTemplates"]["missingLowering"]

  def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(return_type=plgpu.ShapeDtypeStruct((), jnp.float32, plgpu.Layout.WG_SPLAT))
    def one(ctx):
      return None
    o_ref[...] = x_ref[...] + one()

  with pytest.raises(NotImplementedError) as err:
    _interpret(kernel, jnp.ones((128,), jnp.float32), True)
  import re
  assert re.fullmatch(template["regex"], str(err.value)), str(err.value)
  assert "'inline_mgpu_p'" in str(err.value) and str(err.value).endswith("platform cpu")


def test_gpu_interpret_fallback_for_inline_mgpu(table):
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  fact = table["primitives"]["inline_mgpu_p"]["gpuInterpret"]
  assert fact == {"handling": "fallback", "message": None, "fallbackOutcome": "missing-lowering"}

  def kernel(x_ref, o_ref):
    _ref_region(o_ref)
    o_ref[...] = x_ref[...]

  with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive 'inline_mgpu_p'"):
    _interpret(kernel, jnp.ones((128,), jnp.float32), InterpretGPUParams())


def test_no_discharge_rule_template(table):
  assert table["primitives"]["copy_gmem_to_smem"]["discharge"]["status"] == "none"
  template = table["errorTemplates"]["noDischargeRule"]

  def kernel(x_ref, o_ref, smem, barrier):
    plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
    plgpu.barrier_wait(barrier)
    o_ref[...] = smem[...]

  x = jnp.ones((128,), jnp.float32)
  with pytest.raises(NotImplementedError) as err:
    plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                 scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()], interpret=True)(x)
  assert str(err.value) == template["template"].replace("{eqn.primitive}", "copy_gmem_to_smem")


def test_cpu_requires_interpret_and_collective_axes_templates(table):
  x = jnp.ones((128,), jnp.float32)

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

  shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
  with pytest.raises(ValueError) as err:
    plgpu.kernel(kernel, out_type=shape)(x)
  assert str(err.value) == table["errorTemplates"]["cpuRequiresInterpret"]["template"]
  with pytest.raises(NotImplementedError) as err:
    plgpu.kernel(kernel, out_type=shape, num_threads=2, thread_name="t", interpret=True)(x)
  assert str(err.value) == table["errorTemplates"]["runScopedCollectiveAxes"]["template"]


def test_interpret_gpu_params_fields_match_dataclass(table):
  import dataclasses
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  names = [f["name"] for f in table["interpretGPUParams"]["fields"]]
  assert names == [f.name for f in dataclasses.fields(InterpretGPUParams)]
  assert table["interpretGPUParams"]["hasInlineMgpuOption"] == ("inline_mgpu" in names)
  InterpretGPUParams(**{n: getattr(InterpretGPUParams(), n) for n in names})


def test_mosaic_gpu_semantics_and_arms(table):
  from jax._src.pallas.mosaic_gpu import lowering
  from jax._src.pallas.mosaic_gpu import primitives as mgpu_prims
  rules = lowering.mosaic_lowering_rules
  lane_wg = [k for k in rules if k[0].name == "Lane" and k[1].name == "Warpgroup"][0]
  assert (mgpu_prims.inline_mgpu_p in rules[lane_wg]) == ("LanexWarpgroup" in table["primitives"]["inline_mgpu_p"]["mosaicGpuLowering"])
  assert table["primitives"]["wgmma_ref"]["gpuInterpret"]["handling"] == "arm"
  assert table["primitives"]["wgmma_ref"]["mosaicGpuLowering"] == []


def test_extractor_degrades_when_modules_are_missing(monkeypatch):
  monkeypatch.setattr(extractor_config, "INTERPRET_MODULES", ("jax._src.no_such_module",))
  monkeypatch.setattr(extractor_config, "ERROR_ANCHORS", {"x": ("jax._src.no_such_module", "y")})
  table = extract_knowledge.extract()
  assert table["primitives"]["inline_mgpu_p"]["gpuInterpret"] is None
  assert table["errorTemplates"]["x"]["found"] is False


def _lower_for_cuda(fn, *args):
  jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",))


def test_missing_mosaic_gpu_rule_template(table):
  import re
  fact = table["primitives"]["reciprocal"]
  assert fact["mosaicGpuLowering"] == [] and fact["cpuLowering"] is True
  assert table["apis"]["pl.reciprocal"]["binds"] == ["reciprocal"]
  template = table["errorTemplates"]["mosaicGpuUnimplemented"]
  x = jnp.ones((128,), jnp.float32)

  def kernel(x_ref, o_ref):
    o_ref[...] = pl.reciprocal(x_ref[...])

  for semantics in ("Lane", "Warpgroup"):
    params = plgpu.CompilerParams(lowering_semantics=getattr(plgpu.LoweringSemantics, semantics))
    f = plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), compiler_params=params)
    with pytest.raises(NotImplementedError) as err:
      _lower_for_cuda(f, x)
    assert err.type.__name__ == template["exception"]
    assert re.fullmatch(template["regex"], str(err.value)), str(err.value)
    assert f"reciprocal for lowering semantics LoweringSemantics.{semantics}" in str(err.value)
  # The CPU lowering the table records: interpret=True runs it.
  assert float(_interpret(kernel, jnp.full((128,), 4.0, jnp.float32), True)[0]) == 0.25


def test_warp_only_rule_fails_under_warpgroup_user_semantics(table):
  assert table["primitives"]["barrier_test"]["mosaicGpuLowering"] == ["LanexWarp", "WarpgroupxWarp"]
  x = jnp.ones((128,), jnp.float32)

  def kernel(x_ref, o_ref, barrier):
    done = plgpu.barrier_test(barrier)
    o_ref[...] = jnp.where(done, x_ref[...], 0.0)

  f = plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), scratch_types=[plgpu.Barrier()])
  with pytest.raises(NotImplementedError, match="barrier_test for lowering semantics LoweringSemantics.Lane "
                                               "and user thread semantics PrimitiveSemantics.Warpgroup"):
    _lower_for_cuda(f, x)


def test_returns_before_bind(table):
  assert table["apis"]["pl.broadcast_to"]["returnsBeforeBind"] is True
  assert table["apis"]["pl.reciprocal"]["returnsBeforeBind"] is False
  same = jax.make_jaxpr(lambda v: pl.broadcast_to(v, (128,)))(jnp.ones((128,), jnp.float32))
  other = jax.make_jaxpr(lambda v: pl.broadcast_to(v, (128,)))(jnp.ones((), jnp.float32))
  assert "broadcast_to" not in {e.primitive.name for e in same.jaxpr.eqns}
  assert "broadcast_to" in {e.primitive.name for e in other.jaxpr.eqns}
  # The early return compares parameter 0's shape with parameter 1: a Python
  # number (shape ()) against a non-empty literal shape always binds.
  assert table["apis"]["pl.broadcast_to"]["returnsBeforeBindIf"] == {"shapeOf": 0, "equals": 1}
  number = jax.make_jaxpr(lambda: pl.broadcast_to(1.0, (128,)))()
  assert "broadcast_to" in {e.primitive.name for e in number.jaxpr.eqns}


def _wgmma_kernel(shared_scope):
  def kernel(a_ref, b_ref, o_ref):
    if shared_scope:
      def scope(acc_ref, a_smem, b_smem):
        a_smem[...] = a_ref[...]
        b_smem[...] = b_ref[...]
        plgpu.wgmma(acc_ref, a_smem, b_smem)
        return acc_ref[...]
      o_ref[...] = pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32),
                                 plgpu.SMEM((64, 64), jnp.float16), plgpu.SMEM((64, 64), jnp.float16))
    else:
      def scope(acc_ref):
        plgpu.wgmma(acc_ref, a_ref, b_ref)
        return acc_ref[...]
      o_ref[...] = pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))
  return kernel


def test_discharge_rule_binds_functional_form(table):
  import re
  fact = table["primitives"]["wgmma_ref"]["discharge"]
  assert fact["status"] == "exists" and fact["kind"] == "full"
  assert fact["binds"] == ["wgmma"] and fact["writesOperands"] == [0]
  assert table["primitives"]["wgmma"]["cpuLowering"] is False
  a = jnp.ones((64, 64), jnp.float16)
  call = lambda shared: pl.pallas_call(_wgmma_kernel(shared), out_shape=jax.ShapeDtypeStruct((64, 64), jnp.float32),
                                       interpret=True)(a, a)
  # All operands discharged together: the rule runs, binds wgmma on values,
  # which has no CPU lowering.
  with pytest.raises(NotImplementedError) as err:
    call(True)
  assert re.fullmatch(table["errorTemplates"]["missingLowering"]["regex"], str(err.value))
  assert "'wgmma'" in str(err.value)
  # Kernel Refs discharged before the accumulator: the full rule writes back
  # operand 0, which is not being discharged yet.
  template = table["errorTemplates"]["dischargedUnflaggedInput"]
  with pytest.raises(ValueError) as err:
    call(False)
  assert re.fullmatch(template["regex"], str(err.value)), str(err.value)


def test_accumulator_read_rebinds_itself(table):
  fact = table["primitives"]["wgmma_accumulator_deref_p"]
  assert fact["discharge"]["binds"] == ["wgmma_accumulator_deref_p"]
  assert fact["discharge"]["writesOperands"] == [] and fact["cpuLowering"] is False
  indexing = table["refIndexing"]["plgpu.ACC"]
  assert indexing["getitem"] == ["wgmma_accumulator_deref_p"]
  assert indexing["setitem"] == ["wgmma_accumulator_store_p"]

  def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.run_scoped(lambda acc: acc[...], plgpu.ACC((64, 64), jnp.float32))

  x = jnp.ones((64, 64), jnp.float32)
  call = lambda x: pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
  scoped = [e for e in _all_eqns(jax.make_jaxpr(call)(x).jaxpr) if e.primitive.name == "run_scoped"]
  assert [e.primitive.name for e in scoped[0].params["jaxpr"].eqns] == ["wgmma_accumulator_deref_p"]
  with pytest.raises(NotImplementedError, match="'wgmma_accumulator_deref_p' not found for platform cpu"):
    call(x)


def _all_eqns(jaxpr):
  from jax._src import core
  for eqn in jaxpr.eqns:
    yield eqn
    for v in eqn.params.values():
      for sub in (v if isinstance(v, (tuple, list)) else (v,)):
        if isinstance(sub, core.ClosedJaxpr):
          yield from _all_eqns(sub.jaxpr)
        elif isinstance(sub, core.Jaxpr):
          yield from _all_eqns(sub)


def test_mosaic_gpu_resources_hold_in_real_jax(table):
  """The numbers PLS005/PLS009 compute with are JAX's own (the static read
  parses them; here they are checked against the imported modules)."""
  from jax._src.pallas.mosaic_gpu import core as gpu_core
  from jax.experimental.mosaic.gpu import utils as mgpu_utils
  res = table["mosaicGpuResources"]
  assert res["smemAlignment"] == gpu_core.SMEM_ALIGNMENT
  assert res["mbarrierBytes"] == mgpu_utils.MBARRIER_BYTES
  params = gpu_core.CompilerParams()
  assert res["maxConcurrentStepsDefault"] == params.max_concurrent_steps
  assert res["reductionScratchBytesDefault"] == params.reduction_scratch_bytes
  assert res["defaultSmemLimit"] > 0  # its value is checked by the oracle (compiled_smem_*)
  with pytest.raises(ValueError, match="At most %d are supported" % res["maxMosaicThreads"]):
    gpu_core.Mesh(num_threads=res["maxMosaicThreads"] + 1, thread_name="wg")
  gpu_core.Mesh(num_threads=res["maxMosaicThreads"], thread_name="wg")


def test_tmem_numbers_hold_in_real_jax(table):
  """The TMEM part of PLS005 (columns, rounding, the limit) and the
  warp-specialized pipeline's default stages are JAX's own."""
  import inspect
  from jax._src.pallas.mosaic_gpu import pipeline as gpu_pipeline
  from jax.experimental.mosaic.gpu import tcgen05
  res = table["mosaicGpuResources"]
  assert res["tmemRows"] == tcgen05.TMEM_ROWS
  assert res["tmemMaxCols"] == tcgen05.TMEM_MAX_COLS
  # The fewest columns one allocation takes, and the rounding to a power of two.
  assert tcgen05.tmem_alloc_exact_ncols(1, exact=False) == res["tmemMinAllocCols"]
  assert tcgen05.tmem_alloc_exact_ncols(res["tmemMaxCols"] // 2 + 1, exact=False) == res["tmemMaxCols"]
  with pytest.raises(ValueError, match="exceeding the limit of %d" % res["tmemMaxCols"]):
    tcgen05.tmem_alloc_exact_ncols(res["tmemMaxCols"] + 1, exact=False)
  from jax._src.pallas.mosaic_gpu.lowering import Resources
  assert Resources(tmem_scratch_cols=1).tmem_scratch_cols == res["tmemColAlignment"]
  default = inspect.signature(gpu_pipeline.emit_pipeline_warp_specialized).parameters["max_concurrent_steps"].default
  assert res["maxConcurrentStepsWarpSpecializedDefault"] == default
  assert res["tmemAddressBytes"] == 4  # the i32 address word; checked byte for byte by compiled_smem_tmem_*


def test_resource_estimators_and_higher_order_apis_hold_in_real_jax(table):
  """The table's estimator names are the live registry's, and jax.checkpoint
  binds a primitive without one: lowering such a kernel for CUDA raises the
  table's resource-estimation message naming it."""
  from jax._src.pallas.mosaic_gpu import lowering
  assert table["mosaicGpuResourceEstimators"] == sorted(p.name for p in lowering._resource_estimators)
  binds = table["higherOrderApis"]["jax.checkpoint"]["binds"]
  missing = [p for p in binds if table["primitives"][p]["name"] not in table["mosaicGpuResourceEstimators"]]
  assert missing == ["remat2"]

  def kernel(x_ref, o_ref):
    o_ref[...] = jax.checkpoint(lambda v: v * 2.0)(x_ref[...])

  x = jnp.ones((128,), jnp.float32)
  fn = plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))
  with pytest.raises(NotImplementedError) as e:
    jax.jit(fn).trace(x).lower(lowering_platforms=("cuda",))
  template = table["errorTemplates"]["resourceEstimationUnsupported"]["template"]
  assert str(e.value) == template.replace("{eqn.primitive}", "remat2")


def test_load_abstract_eval_asserts_a_ref(table):
  """load's fallback outcome: its abstract eval asserts a Ref, so binding it
  on an array (what GPU interpret mode's fallback does) is a bare assert."""
  from jax._src.pallas.mosaic_gpu import primitives as mgpu_primitives
  assert table["primitives"]["load"]["gpuInterpret"]["fallbackOutcome"] == "abstract-eval-asserts-ref"
  with pytest.raises(AssertionError) as e:
    jax.make_jaxpr(lambda a: mgpu_primitives.load_p.bind(a, tree=jax.tree.structure(()), optimized=False))(
        jnp.ones((4,), jnp.int32))
  assert str(e.value) == ""


def _lower_compiled(fn):
  kernel = plgpu.kernel(lambda x_ref, o_ref: o_ref.__setitem__(..., fn(x_ref[...])),
                        out_shape=jax.ShapeDtypeStruct((128,), jnp.float32))
  x = jax.ShapeDtypeStruct((128,), jnp.float32)
  return jax.jit(kernel).trace(x).lower(lowering_platforms=("cuda",))


def test_numeric_apis_name_what_mosaic_gpu_cannot_lower(table):
  """numericApis (traced by the extractor): jnp.sqrt binds sqrt, which has
  no Mosaic GPU rule, and lowering a compiled kernel calling it fails naming
  it; lax.rsqrt lowers, so it is not recorded."""
  apis, prims = table["numericApis"], table["numericPrimitives"]
  assert apis["jnp.sqrt"]["binds"] == ["sqrt"]
  assert prims["sqrt"]["mosaicGpuLowering"] == [] and prims["sqrt"]["cpuLowering"]
  assert "lax.rsqrt" not in apis
  # jnp.array(x) copies a traced x but binds nothing for a constant: what
  # depends on the operand is not recorded.
  assert "jnp.array" not in apis
  with pytest.raises(NotImplementedError, match="Unimplemented primitive in Pallas Mosaic GPU lowering: sqrt"):
    _lower_compiled(jnp.sqrt)
  _lower_compiled(jax.lax.rsqrt)
  # Every recorded API binds some primitive without a rule for Lane or
  # Warpgroup lowering (the extractor keeps nothing else).
  full = {"LanexWarpgroup", "WarpgroupxWarpgroup"}
  for api, entry in apis.items():
    assert any(not full <= set(prims[p]["mosaicGpuLowering"]) for p in entry["binds"]), api
