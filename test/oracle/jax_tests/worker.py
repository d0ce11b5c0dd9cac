#!/usr/bin/env python3
"""Runs tests of ONE of JAX's own Pallas test files on CPU on one path.

    python worker.py MODE TEST_FILE [--list] [--timeout S] [TEST_ID...]

MODE selects how every launch runs (the harness compares each with the path
matrix pallas-lsp gives for that launch):

* ``as-written``   the test as JAX's authors wrote it;
* ``interpret``    every ``pl.pallas_call`` / ``pl.core_map`` /
                   ``plgpu.kernel`` is called with ``interpret=True`` (the
                   discharge interpreter), whatever the test passed;
* ``gpu-interpret`` GPU interpret mode set process-wide with the installed
                   JAX's own setter, which overrides every launch's
                   ``interpret=`` (see ``force_gpu_interpret_mode``'s docstring).

Tests written for a GPU (``mosaic_gpu_test.py``) skip themselves in setUp on
a machine without one; their setUp asks ``jtu.is_cuda_compute_capability_at_least``,
which this worker answers "yes" so the kernel itself decides what happens.

One JSON object per test is printed on its own line as soon as the test ends:
``{"id", "outcome": pass|fail|error|skip|timeout, "type", "message"}``. A
``fail`` is the test's own assertion (the kernel ran); an ``error`` is an
exception raised while tracing, lowering or running it.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import signal
import sys
import traceback
import unittest

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _force_interpret_true() -> None:
  from jax.experimental import pallas as pl
  from jax.experimental.pallas import mosaic_gpu as plgpu

  def forced(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
      kwargs["interpret"] = True
      return fn(*args, **kwargs)

    return call

  pl.pallas_call = forced(pl.pallas_call)
  pl.core_map = forced(pl.core_map)
  plgpu.kernel = forced(plgpu.kernel)


def _force_gpu_interpret() -> None:
  from jax._src.pallas.mosaic_gpu.interpret.params import (
      InterpretGPUParams,
      set_gpu_interpret_mode,
  )

  set_gpu_interpret_mode(InterpretGPUParams())


def _pretend_hopper_for_setup() -> None:
  from jax._src import test_util as jtu

  jtu.is_cuda_compute_capability_at_least = lambda *_a, **_k: True


def _load(test_file: str):
  sys.path.insert(0, os.path.dirname(os.path.abspath(test_file)))
  sys.argv = [test_file]
  name = "jax_test_under_oracle"
  spec = importlib.util.spec_from_file_location(name, test_file)
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module
  spec.loader.exec_module(module)
  return module


def _tests(module) -> dict[str, unittest.TestCase]:
  out = {}

  def walk(suite):
    for t in suite:
      if isinstance(t, unittest.TestSuite):
        walk(t)
      else:
        out[f"{type(t).__name__}.{t._testMethodName}"] = t

  walk(unittest.TestLoader().loadTestsFromModule(module))
  return out


class _Timeout(BaseException):
  pass


def _first_line(e: BaseException) -> str:
  text = str(e).strip().splitlines()
  return text[0][:300] if text else ""


# JAX's files whose frames show a launch being traced, lowered or run.
_LAUNCH_FILES = {"pallas_call.py", "lowering.py", "jaxpr_interpret.py", "discharge.py"}


def _is_launch_frame(path: str) -> bool:
  return "/jax/_src/" in path and os.path.basename(path) in _LAUNCH_FILES


def _is_pallas_frame(path: str) -> bool:
  """A frame of Pallas or Mosaic GPU itself: tracing, lowering, the
  interpreters and GPU interpret mode's callbacks (which XLA calls while the
  kernel runs)."""
  return ("/jax/_src/pallas/" in path or "/jax/experimental/mosaic/" in path
          or _is_launch_frame(path))


def _reset_gpu_interpret_state() -> None:
  """Forgets GPU interpret mode's process-wide simulated memory, as a fresh
  process would have it.

  JAX 0.10.2's GPU interpreter keeps its shared memory in a module global
  (`gpu_callbacks._shared_memory`), creates it only when it is None, and
  drops it in the clean-up callback at the end of a kernel that completes.
  A kernel that raises in a callback (a predicated copy, an unsupported
  primitive) never reaches that clean-up: the next GPU-interpret kernel in
  the same process inherits its barriers and fails at its own end with
  "AssertionError: Barrier remains allocated" (or with a bare assert on the
  thread count when the two kernels' threads differ). That is the earlier
  test's failure leaking, not a property of the later kernel (verified: a
  one-line kernel run after a failing pipeline fails so, and runs once the
  state is dropped), so each test starts from a clean state, with the
  installed JAX's own clear function.
  """
  try:
    from jax._src.pallas.mosaic_gpu.interpret import gpu_callbacks
  except ImportError:
    return
  clear = getattr(gpu_callbacks, "_clear_shared_memory", None)
  if clear is not None:
    clear()


def _run_one(test: unittest.TestCase, timeout: int) -> dict:
  _reset_gpu_interpret_state()
  result = unittest.TestResult()

  def on_alarm(*_):
    raise _Timeout()

  signal.signal(signal.SIGALRM, on_alarm)
  signal.alarm(timeout)
  try:
    test.run(result)
  except _Timeout:
    return {"outcome": "timeout", "type": "", "message": f"over {timeout} s"}
  finally:
    signal.alarm(0)
  if result.skipped:
    return {"outcome": "skip", "type": "", "message": result.skipped[0][1][:300]}
  if result.errors:
    text = result.errors[0][1]
    last = text.strip().splitlines()[-1]
    etype = last.split(":", 1)[0].rsplit(".", 1)[-1]
    if "_Timeout" in etype:
      return {"outcome": "timeout", "type": "", "message": f"over {timeout} s"}
    # Whether the error rose while JAX traced, lowered or ran a launch: one
    # raised before any (the test's own setup, `capture_stdout` needing the
    # Mosaic GPU extension) says nothing about the path.
    frames = re.findall(r'^  File "([^"]+)"', text, re.M)
    return {"outcome": "error", "type": etype, "message": last[:300],
            "inLaunch": any(_is_pallas_frame(f) for f in frames)}
  if result.failures:
    text = result.failures[0][1]
    last = text.strip().splitlines()[-1]
    # unittest counts every AssertionError as the test's own failure, also a
    # bare `assert` inside JAX (GPU interpret mode's `_load_abstract_eval`):
    # raised by JAX's code, it is an error of that path, not the test's check.
    # It is one when it rose while JAX traced, lowered or ran a launch (a
    # frame of pallas_call / the interpreters / the lowering); checks of the
    # test itself end in unittest, numpy.testing or JAX's test_util, and a
    # JAX helper the test calls after the kernel ran (`get_races()`) is no
    # launch either: those are failures.
    frames = re.findall(r'^  File "([^"]+)"', text, re.M)
    in_launch = any(_is_launch_frame(f) for f in frames)
    if frames and in_launch and "/jax/" in frames[-1] and "test_util" not in frames[-1]:
      return {"outcome": "error", "type": "AssertionError",
              "message": f"{last[:240]} (raised in {os.path.basename(frames[-1])})"}
    return {"outcome": "fail", "type": "AssertionError", "message": last[:300]}
  return {"outcome": "pass", "type": "", "message": ""}


def main(argv: list[str]) -> int:
  mode, test_file, rest = argv[0], argv[1], argv[2:]
  listing = "--list" in rest
  timeout = 120
  if "--timeout" in rest:
    timeout = int(rest[rest.index("--timeout") + 1])
  wanted = [a for a in rest if not a.startswith("--") and not a.isdigit()]
  _pretend_hopper_for_setup()
  if mode == "interpret":
    _force_interpret_true()
  elif mode == "gpu-interpret":
    _force_gpu_interpret()
  elif mode != "as-written":
    print(f"unknown mode {mode}", file=sys.stderr)
    return 2
  tests = _tests(_load(test_file))
  if listing:
    for tid in tests:
      print(json.dumps({"id": tid}), flush=True)
    return 0
  for tid in wanted:
    test = tests.get(tid)
    if test is None:
      row = {"outcome": "error", "type": "NotFound", "message": "no such test"}
    else:
      try:
        row = _run_one(test, timeout)
      except Exception as e:  # the runner itself must keep going
        row = {"outcome": "error", "type": type(e).__name__, "message": _first_line(e)}
        traceback.print_exc()
    print(json.dumps({"id": tid, **row}), flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
