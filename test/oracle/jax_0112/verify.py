#!/usr/bin/env python3
"""The JAX 0.11.2 facts of analysis/knowledge/jax-0.11.2.json that the static
read alone cannot prove, run with real JAX 0.11.2 (by hand: JAX 0.11 needs
Python 3.12, which the suite's environment is not):

    python3.12 -m venv /tmp/venv312 && /tmp/venv312/bin/pip install jax==0.11.2 jaxlib==0.11.2 pytest
    JAX_PLATFORMS=cpu /tmp/venv312/bin/python test/oracle/jax_0112/verify.py
    JAX_PLATFORMS=cpu /tmp/venv312/bin/python -m pytest test/knowledge/test_custom_derivatives.py

Each check prints `ok <name>` or `FAILED <name>: <what happened>`; exit 1 on a
failure. docs/jax-facts.md ("What differs in JAX 0.11.2") lists what each
shows.
"""
import json
import os
import sys
import traceback

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TABLE = json.load(open(os.path.join(ROOT, "analysis", "knowledge", f"jax-{jax.__version__}.json"), encoding="utf-8"))
X = jnp.ones((128,), jnp.float32)
OUT = jax.ShapeDtypeStruct(X.shape, X.dtype)


def copy_kernel(x_ref, o_ref, *scratch, **named):
  del scratch, named
  o_ref[...] = x_ref[...] + 1.0


def raises(fn):
  try:
    fn()
  except Exception as e:  # noqa: BLE001 -- what JAX raised is the point
    return type(e).__name__, str(e).split("\n")[0]
  return None


def lower_cuda(fn):
  return lambda: jax.jit(fn).trace(X).lower(lowering_platforms=("cuda",))


CHECKS = {}


def check(fn):
  CHECKS[fn.__name__] = fn
  return fn


@check
def gpu_interpret_allocates_cluster_barriers():
  """gpuInterpretAllocates.kernel holds cluster_barrier: a ClusterBarrier in
  plgpu.kernel's scratch runs in GPU interpret mode (0.10.2: nan + cluster_barrier)."""
  assert "cluster_barrier" in TABLE["gpuInterpretAllocates"]["kernel"]
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  run = plgpu.kernel(copy_kernel, out_type=OUT, scratch_types=[plgpu.ClusterBarrier(collective_axes=("x",))],
                     cluster=(2,), cluster_names=("x",), interpret=InterpretGPUParams())
  assert raises(lambda: jax.block_until_ready(run(X))) is None


@check
def gpu_interpret_fills_semaphores():
  """... and not semaphore: nan + semaphore, as in 0.10.2."""
  assert "semaphore" not in TABLE["gpuInterpretAllocates"]["kernel"]
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  run = plgpu.kernel(copy_kernel, out_type=OUT, scratch_types=dict(sem=plgpu.SemaphoreType.REGULAR),
                     interpret=InterpretGPUParams())
  got = raises(lambda: jax.block_until_ready(run(X)))
  assert got == ("NotImplementedError", "nan + semaphore"), got


@check
def custom_jvp_fails_resource_estimation():
  """jax.nn.relu (customDerivativeApis) in a compiled kernel: no estimator
  for custom_jvp_call in 0.11.2 either."""
  assert TABLE["customDerivativeApis"]["jax.nn.relu"]["binds"] == "custom_jvp_call"
  assert "custom_jvp_call" not in TABLE["mosaicGpuResourceEstimators"]

  def kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.relu(x_ref[...])

  got = raises(lower_cuda(plgpu.kernel(kernel, out_type=OUT)))
  assert got == ("NotImplementedError", "Resource estimation does not support custom_jvp_call"), got


@check
def emit_pipeline_binds_no_cp_async_wait_at_9_0():
  """plgpu.emit_pipeline's wait_gmem_to_smem is bound only below compute
  capability 9.0 (source_ast.before_hopper_node_ids): not in its bindsTransitive,
  and the pipeline runs in GPU interpret mode (_infer_arch() is (9, 0) on CPU)."""
  assert "wait_gmem_to_smem" not in TABLE["apis"]["plgpu.emit_pipeline"]["bindsTransitive"]
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams

  def kernel(x_gmem, o_gmem):
    def body(_, x_smem, o_smem):
      o_smem[...] = x_smem[...] + 1.0
    plgpu.emit_pipeline(body, grid=(1,), in_specs=[pl.BlockSpec((128,), lambda i: (0,))],
                        out_specs=[pl.BlockSpec((128,), lambda i: (0,))])(x_gmem, o_gmem)

  run = plgpu.kernel(kernel, out_type=OUT, interpret=InterpretGPUParams())
  got = raises(lambda: jax.block_until_ready(run(X)))
  assert got is None, got


@check
def smem_arithmetic_matches_the_table():
  """mosaicGpuSmemModel of 0.11.2 and JAX's own smem_bytes for a RefUnion,
  barriers after 227 KiB, and a kernel exactly at the limit."""
  from jax.experimental.mosaic.gpu import core as mgpu_core
  model = {k: v["value"] for k, v in TABLE["mosaicGpuSmemModel"].items()}
  assert model["limitCheck"] == ">" and model["siblingsCombine"] == "max", model

  def smem(scratch):
    with mgpu_core.artificial_shared_memory_limit(0):
      got = raises(lower_cuda(plgpu.kernel(copy_kernel, out_type=OUT, scratch_types=scratch)))
    return int(got[1].split("smem_bytes=")[1].split(" ")[0])

  union = plgpu.RefUnion((plgpu.SMEM((100,), jnp.float32), plgpu.SMEM((300,), jnp.float16)),
                         plgpu.SMEM((2000,), jnp.float32))
  assert smem([union, plgpu.SMEM((1024,), jnp.float32), plgpu.Barrier(num_arrivals=1)]) == 12296
  assert smem([plgpu.SMEM((200, 256), jnp.float32), plgpu.SMEM((27, 256), jnp.float32),
               plgpu.Barrier(num_arrivals=1, num_barriers=5)]) == 232488


@check
def pallas_call_has_no_mosaic_gpu_lowering():
  """Not modelled yet: JAX 0.11.2 registers no Mosaic GPU lowering for
  pl.pallas_call (jax/_src/pallas/mosaic_gpu/pallas_call_registration.py no
  longer calls pallas_core.register_lowering_rule), so a compiled
  pl.pallas_call with plgpu.CompilerParams fails a bare assert."""
  run = pl.pallas_call(copy_kernel, out_shape=OUT, compiler_params=plgpu.CompilerParams())
  got = raises(lower_cuda(run))
  assert got == ("AssertionError", ""), got


@check
def pallas_call_without_params_is_triton():
  """A pl.pallas_call without compiler params goes to Triton on a GPU in
  0.11.2 (there is no jax_pallas_use_mosaic_gpu flag; pallas_call.py's
  gpu_lowering makes Triton's CompilerParams()): jax.nn.relu in its kernel
  does not meet Mosaic GPU's resource estimation, whose error a
  plgpu.kernel with the same body raises (table
  mosaicGpuDefaults.pallasCallWithoutParams)."""
  def relu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.relu(x_ref[...])
  got = raises(lower_cuda(pl.pallas_call(relu_kernel, out_shape=OUT)))
  assert got is None or "Resource estimation" not in got[1], got
  assert got is None or "Mosaic GPU" not in got[1], got
  mosaic = raises(lower_cuda(plgpu.kernel(relu_kernel, out_type=OUT)))
  assert mosaic == ("NotImplementedError", "Resource estimation does not support custom_jvp_call"), mosaic
  assert TABLE["mosaicGpuDefaults"]["pallasCallWithoutParams"] == {"flag": None, "backend": "triton"}


@check
def atomic_store_discharge_fails_unpacking():
  """The atomic store's discharge rule still unpacks four arguments where
  plgpu.atomic_add binds three: interpret=True raises ValueError for every
  atomic op (table primitives.mgpu_atomic_store.discharge, read from the
  AST by the static extractor)."""
  def kernel(x_ref, _o_in, o_ref):
    plgpu.atomic_add(o_ref.at[1], x_ref[0])
  gmem = plgpu.BlockSpec(memory_space=plgpu.GMEM)
  x = jnp.ones((2, 128), jnp.float32)
  run = pl.pallas_call(kernel, in_specs=[gmem, gmem], out_specs=gmem, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       input_output_aliases={1: 0}, interpret=True)
  got = raises(lambda: run(x, jnp.zeros_like(x)))
  fact = TABLE["primitives"]["mgpu_atomic_store"]["discharge"]
  assert got == (fact["exception"], fact["message"]), (got, fact)


def main():
  print(f"JAX {jax.__version__}")
  failed = 0
  for name, fn in CHECKS.items():
    try:
      fn()
      print(f"ok {name}")
    except Exception:  # noqa: BLE001
      failed += 1
      print(f"FAILED {name}:\n{traceback.format_exc(limit=3)}")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
