#!/usr/bin/env python3
"""Runs ONE oracle fixture with real JAX (CPU) and prints what happened as JSON.

    python oracle_run.py FIXTURE.py
    python oracle_run.py --serve TIMEOUT_S   (fixture paths on stdin, one JSON line each out)

Each fixture runs as written, then its also= run, then once per forced path
(forcing.py: interpret, gpu-interpret, gpu-interpret-mode, compiled; under
"forced"), all in one process (ORACLE_FORCED=0 skips the forced runs). With
--serve, JAX is imported once and each fixture runs in a child forked from
the server (record.py).

A fixture declares how it is run in a header comment:

    # oracle: path=<interpret|gpu-interpret|compiled|may> launch=<...> how=<call|lower-cuda> expect=<ok|error:Type>

and defines ``run()``. Optional fields (issue 19: the agreement test reads them):

* ``choice=<path>`` (with ``path=may``): the path the harness's run takes
  (the fixture's run-time value as the harness leaves the environment).
* ``also=<path> also-expect=<ok|error:Type>`` (with ``path=may``): run the
  fixture a second time with ``ORACLE_CHOICE=<path>`` in the environment,
  which the fixture reads to select that path; ``compiled`` is lowered for
  CUDA (``run()`` then returns ``(fn, args)``). Its blamed line carries
  ``# <- blame(<path>)``.
* ``code=PLS00N`` / ``also-code=PLS00N``: the code of the finding the run
  (the also= run) expects, where it is not PLS001/PLS002.
* ``caught=yes`` (with ``expect=ok``): ``run()`` catches the exception the
  launch raises and goes on; pallas-lsp may only warn, naming the except
  clause.
* ``binds=may``: whether the failing primitive is bound at all depends on
  shapes, which pallas-lsp does not track (``pl.broadcast_to`` returns its
  input unchanged when the shape already matches): it may only warn.

A forced path that cannot be meaningfully forced (the compiled path of a
``run()`` that needs concrete values, a forced run that takes minutes) is
declared in a header line ``# oracle-unforced: <path>: <reason>``
(test_path_matrix.py checks that it is indeed unforced).

With ``how=call`` the harness calls ``run()`` and
blocks on its result. With ``how=lower-cuda`` ``run()`` returns ``(fn, args)``
and the harness lowers ``jax.jit(fn)`` for the ``cuda`` platform, which JAX
does on a CPU-only machine (Mosaic GPU lowering needs no device).

The result is either success, or the exception type and message plus the user
source line JAX blames. The blamed line comes from JAX's own source info: the
fixture is traced with ``jax.make_jaxpr`` and the first equation (program
order, recursing into sub-jaxprs found in params) that matches the error is
taken; its user frame (``source_info_util.user_frame``) is the blame. Which
equation matches an error is decided by BLAME_RULES below; for errors that
name no equation or whose equation exists only after discharge (RAISING_EQN),
the equation JAX was processing or the user frame JAX gives as the error's
cause is used; a bare AssertionError raised while GPU interpret mode's
interpreter handles an equation blames that equation (rule
"gpu-interpreter-eqn"); failing that, the innermost traceback frame inside the
fixtures tree (rule "traceback").
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import sys
import time
import traceback
import warnings

import forcing

HEADER = re.compile(r"^#\s*oracle:\s*(?P<fields>.*)$", re.M)


UNFORCED = re.compile(r"^#\s*oracle-unforced:\s*(?P<path>[\w-]+):\s*(?P<reason>\S.*)$", re.M)


def unforced_declared(path):
  """{forced path or "all": reason} of the `# oracle-unforced:` lines."""
  with open(path, encoding="utf-8") as f:
    return {m.group("path"): m.group("reason") for m in UNFORCED.finditer(f.read())}


def parse_header(path):
  with open(path, encoding="utf-8") as f:
    match = HEADER.search(f.read())
  if not match:
    raise SystemExit(f"{path}: no '# oracle:' header")
  return dict(item.split("=", 1) for item in match.group("fields").split())


def load_fixture(path):
  fixtures_root = os.path.dirname(os.path.abspath(path))
  sys.path.insert(0, fixtures_root)  # so `from helpers import ...` works
  spec = importlib.util.spec_from_file_location("oracle_fixture", path)
  module = importlib.util.module_from_spec(spec)
  # As `import` does: the module is in sys.modules while its body runs, so
  # `sys.modules[__name__]` finds it.
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)
  return module


def _has_ref_operand(eqn):
  from jax._src.state.types import AbstractRef
  return any(isinstance(getattr(v, "aval", None), AbstractRef) for v in eqn.invars)


def _sub_jaxprs(params):
  from jax._src import core
  for value in params.values():
    values = value if isinstance(value, (tuple, list)) else (value,)
    for v in values:
      if isinstance(v, core.ClosedJaxpr):
        yield v.jaxpr
      elif isinstance(v, core.Jaxpr):
        yield v


def iter_eqns(jaxpr):
  """Every equation in program order, a higher-order equation before its body."""
  for eqn, _ in iter_eqns_with_parents(jaxpr):
    yield eqn


def iter_eqns_with_parents(jaxpr, parents=()):
  """(equation, enclosing equations outermost first) in program order."""
  for eqn in jaxpr.eqns:
    yield eqn, parents
    for sub in _sub_jaxprs(eqn.params):
      yield from iter_eqns_with_parents(sub, parents + (eqn,))


# (message regex, predicate builder) in priority order. The predicate decides
# which equation JAX was processing when it raised.
def _named(name, want_refs=None):
  def pred(eqn):
    if eqn.primitive.name != name:
      return False
    return want_refs is None or _has_ref_operand(eqn) == want_refs
  return pred


BLAME_RULES = [
    # Discharge only consults a rule for equations with discharged ref
    # operands, so prefer the first such equation; fall back to any.
    (re.compile(r"^(\w+) does not support discharge"), lambda m: [_named(m.group(1), True), _named(m.group(1))]),
    (re.compile(r"No state discharge rule implemented for primitive: (\w+)"),
     lambda m: [_named(m.group(1), True), _named(m.group(1))]),
    (re.compile(r"get_global discharge is not supported"), lambda m: [_named("get_global")]),
    # The primitive may exist only after discharge (wgmma_ref's rule binds
    # wgmma): then the equation JAX was lowering is blamed (RAISING_EQN).
    (re.compile(r"MLIR translation rule for primitive '(\w+)' not found"), lambda m: [_named(m.group(1))]),
    (re.compile(r"Unimplemented primitive in Pallas Mosaic GPU lowering: (\w+) "), lambda m: [_named(m.group(1))]),
    # The HLO interpreter rejects run_scoped with collective axes: the
    # equation is the one plgpu.kernel adds around a multi-threaded body.
    (re.compile(r"run_scoped interpret rule does not support collective axes"),
     lambda m: [lambda e: e.primitive.name == "run_scoped" and bool(e.params.get("collective_axes"))]),
    # interpret=True runs a Mosaic GPU mesh body without its named axes.
    (re.compile(r"Found an unbound axis name"), lambda m: [_named("axis_index")]),
    # Compiling a kernel on CPU: blame the launch equation.
    # Multi-threaded GPU interpret mode lowers each thread's body inside a
    # callback; an equation with an effect XLA cannot lower fails there.
    (re.compile(r"Cannot lower jaxpr with effects: (.*)"),
     lambda m: [lambda e: not list(_sub_jaxprs(e.params))
                and any(type(x).__name__ in m.group(1) for x in e.effects)]),
    # The Mosaic GPU lowering's shared-memory check (PLS005) names no
    # equation: the launch's equation is the kernel that does not fit.
    (re.compile(r"Mosaic GPU kernel exceeds available shared memory"),
     lambda m: [lambda e: e.primitive.name in ("pallas_call", "mpmd_map", "core_map")]),
    # ... and its tensor-memory check (Blackwell TMEM columns, PLS005) too.
    (re.compile(r"After rounding up, got \d+ columns, exceeding the limit of \d+"),
     lambda m: [lambda e: e.primitive.name in ("pallas_call", "mpmd_map", "core_map")]),
    (re.compile(r"Only interpret mode is supported on CPU backend"),
     lambda m: [lambda e: e.primitive.name in ("pallas_call", "mpmd_map", "core_map")]),
    # Mosaic GPU's resource estimation (before lowering) names the
    # higher-order primitive it has no estimator for: its equation (the call
    # of jax.checkpoint's result) is the blame.
    (re.compile(r"Resource estimation does not support (\w+)"), lambda m: [_named(m.group(1))]),
    # A full discharge rule wrote back an operand that was not being
    # discharged: the message names no primitive (RAISING_EQN decides).
    (re.compile(r"Did not ask for inval to be discharged but it was"), lambda m: []),
]
# Errors whose equation may not be in the traced program (it is made while
# discharging) or is not named: blame the equation JAX was processing when
# it raised, read from the `eqn` local of the innermost JAX frame that has one
# (state discharge's equation loop), else the user frame JAX attaches as the
# error's cause (JaxStackTraceBeforeTransformation: "the source of the JAX
# operation that, once transformed by JAX, triggered the exception").
RAISING_EQN = [
    re.compile(r"MLIR translation rule for primitive '(\w+)' not found"),
    # A discharge rule that fails on its own first line (JAX 0.10.2's atomic
    # store unpacks four arguments where atomic_add binds three).
    re.compile(r"^(not enough|too many) values to unpack"),
    re.compile(r"Did not ask for inval to be discharged but it was"),
    # Issue 17 (PLS006-PLS008): shape, layout and copy rules that the Mosaic
    # GPU lowering checks inside one equation's rule (wgmma, the accumulator
    # of run_scoped, a copy); the pipeline of a pallas_call is lowered inside
    # the launch's own equation.
    re.compile(r"^WGMMA "),
    re.compile(r"^Only f16 WGMMA supports transposes"),
    re.compile(r"^N must be a multiple of 8 and <= 256"),
    re.compile(r"^Only copies transferring a number of bytes divisible by the warpgroup size"),
    re.compile(r"^async_copy requires all GMEM strides except the last one"),
    re.compile(r"^Async copies "),
]


def blame_from_jaxpr(trace_fn, message):
  from jax._src import source_info_util
  for regex, build in BLAME_RULES:
    match = regex.search(message)
    if not match:
      continue
    closed = trace_fn()
    eqns = list(iter_eqns_with_parents(closed.jaxpr))
    for pred in build(match):
      for eqn, _ in eqns:
        if pred(eqn):
          frame = source_info_util.user_frame(eqn.source_info.traceback)
          if frame is not None:
            return {"file": os.path.abspath(frame.file_name), "line": frame.start_line,
                    "primitive": eqn.primitive.name, "rule": regex.pattern}
    # Equations a JAX helper builds in a nested trace (emit_pipeline's copies)
    # carry no user frame: the innermost enclosing equation that has one is
    # the user's call that made them.
    for pred in build(match):
      for eqn, parents in eqns:
        if pred(eqn):
          for parent in reversed(parents):
            frame = source_info_util.user_frame(parent.source_info.traceback)
            if frame is not None:
              return {"file": os.path.abspath(frame.file_name), "line": frame.start_line,
                      "primitive": eqn.primitive.name, "rule": regex.pattern + " (enclosing)"}
    return {"rule": regex.pattern, "file": None, "line": None, "primitive": None}
  return None


def blame_from_raising_eqn(exc, message, fixtures_root):
  from jax._src import core, source_info_util
  if not any(r.search(message) for r in RAISING_EQN):
    return None
  cause = exc.__cause__
  if isinstance(cause, source_info_util.JaxStackTraceBeforeTransformation):
    frames = [f for f in traceback.extract_tb(cause.__traceback__)
              if os.path.abspath(f.filename).startswith(fixtures_root)]
    if frames:
      return {"file": os.path.abspath(frames[-1].filename), "line": frames[-1].lineno,
              "primitive": None, "rule": "jax-source-of-transformed-op"}
  tb, frames = exc.__traceback__, []
  while tb is not None:
    frames.append(tb.tb_frame)
    tb = tb.tb_next
  for frame in reversed(frames):
    eqn = frame.f_locals.get("eqn")
    if isinstance(eqn, core.JaxprEqn):
      user = source_info_util.user_frame(eqn.source_info.traceback)
      if user is not None:
        return {"file": os.path.abspath(user.file_name), "line": user.start_line,
                "primitive": eqn.primitive.name, "rule": "raising-eqn"}
  return None


def blame_from_gpu_interpreter(exc, message):
  """A bare `assert` (no message) that fails while GPU interpret mode's
  interpreter handles an equation (its fallback re-binds a primitive whose
  abstract eval asserts a Ref operand: `plgpu.load` in JAX 0.10.2) names
  nothing: the equation is the `eqn` local of the interpreter's innermost
  frame that has one (jaxpr_interpret.py), and its user frame the blame."""
  from jax._src import core, source_info_util
  if not isinstance(exc, AssertionError) or message:
    return None
  tb, frames = exc.__traceback__, []
  while tb is not None:
    frames.append(tb.tb_frame)
    tb = tb.tb_next
  for frame in reversed(frames):
    if os.path.basename(frame.f_code.co_filename) != "jaxpr_interpret.py":
      continue
    eqn = frame.f_locals.get("eqn")
    if isinstance(eqn, core.JaxprEqn):
      user = source_info_util.user_frame(eqn.source_info.traceback)
      if user is not None:
        return {"file": os.path.abspath(user.file_name), "line": user.start_line,
                "primitive": eqn.primitive.name, "rule": "gpu-interpreter-eqn"}
  return None


def blame_from_traceback(exc, fixtures_root):
  # "<string>" frames (a dataclass's generated __init__, e.g. plgpu.Mesh's)
  # are no file: with the fixtures folder as the working directory they
  # would look like one.
  frames = [f for f in traceback.extract_tb(exc.__traceback__)
            if not f.filename.startswith("<") and os.path.abspath(f.filename).startswith(fixtures_root)]
  if not frames:
    return None
  last = frames[-1]
  return {"file": os.path.abspath(last.filename), "line": last.lineno, "primitive": None, "rule": "traceback"}


def _fresh_process_state(fixtures_root, mode_state):
  """Between two runs in one process: the fixture and its helpers are
  imported again (a launch built at import is built anew), the process-wide
  GPU interpret mode a run set is unset, and GPU interpret mode's shared
  state, which an error leaves behind, is reset."""
  from jax._src import config
  from jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call import reset_gpu_interpret_mode_state
  for name, module in list(sys.modules.items()):
    file = getattr(module, "__file__", None) or ""
    if name == "oracle_fixture" or os.path.abspath(file).startswith(fixtures_root + os.sep):
      del sys.modules[name]
  config.pallas_tpu_interpret_mode_context_manager.set_global(mode_state)
  reset_gpu_interpret_mode_state()


def run_once(path, header, choice=None, force=None):
  """One run of the fixture: as written (force None; `choice` for the also=
  run, through ORACLE_CHOICE), or with every launch forced onto `force`
  (forcing.FORCED_PATHS). The result: outcome ok / error (type, first line,
  blame) / unforced (the harness could not run it that way: `how`'s
  tracing of a run() that is not traceable, told apart from JAX's verdict)."""
  import jax
  fixtures_root = os.path.dirname(path)
  how = header.get("how", "call")
  result = {}
  if choice:  # the `also=` run: the fixture selects the path from ORACLE_CHOICE
    how = "lower-cuda" if choice == "compiled" else "call"
    result["choice"] = choice
  os.environ.pop("ORACLE_CHOICE", None)
  if choice:
    os.environ["ORACLE_CHOICE"] = choice
  lower = how == "lower-cuda" if force is None else force == "compiled"
  launches = forcing.Launches(fixtures_root)
  context = forcing.forced(force, launches) if force else contextlib.nullcontext()
  if force:  # a forced run that takes minutes cannot be part of the suite
    signal.signal(signal.SIGALRM, _forced_run_too_long)
    signal.alarm(FORCED_RUN_TIMEOUT_S)
  with context:
    module = load_fixture(path)
    try:
      if how == "lower-cuda":
        fn, args = module.run()
      else:
        fn, args = module.run, ()
      if lower:
        jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",))
      elif force == "interpret" and how == "lower-cuda":
        # The HLO interpreter is XLA on the CPU: what it rejects, it rejects
        # while tracing, discharging or compiling; running the compiled
        # program (a grid of thousands of steps in the shared-memory
        # fixtures: minutes) adds nothing.
        jax.jit(fn).trace(*args).lower().compile()
      else:
        jax.block_until_ready(fn(*args))
      result["outcome"] = "ok"
    except ForcedRunTooLong:
      result.update(outcome="unforced", errorType="Timeout",
                    message=f"the run forced onto {force} took more than {FORCED_RUN_TIMEOUT_S}s")
      return result
    except Exception as exc:  # noqa: BLE001 -- recording what JAX raised is the point
      signal.alarm(0)
      full = str(exc)
      message, error_type = full.split("\n")[0], type(exc).__name__
      # Errors raised inside a host callback (multi-threaded GPU interpret mode)
      # arrive wrapped; the last "Type: text" line is the real error.
      inner = re.findall(r"^(\w+(?:Error|Exception)): (.*)$", full, re.M)
      if "CpuCallback error" in message and inner:
        result["wrapper"] = {"errorType": error_type, "message": message}
        error_type, message = inner[-1]
      if force == "compiled" and how == "call" and error_type in UNFORCEABLE:
        # run() did something with a concrete value, which a run lowered
        # for cuda (traced, never run) has not: the harness's limit.
        result.update(outcome="unforced", errorType=error_type, message=message)
        return result
      result.update(outcome="error", errorType=error_type, message=message)
      if how == "lower-cuda":
        trace_fn = lambda: jax.make_jaxpr(fn)(*args)  # noqa: E731
      else:
        trace_fn = lambda: jax.make_jaxpr(module.run)()  # noqa: E731
      blame = None
      try:
        blame = blame_from_jaxpr(trace_fn, full)
      except Exception as trace_exc:  # noqa: BLE001 -- tracing itself may fail
        result["traceError"] = f"{type(trace_exc).__name__}: {str(trace_exc).splitlines()[0] if str(trace_exc) else ''}"
      if blame is None or blame.get("line") is None:
        blame = blame_from_raising_eqn(exc, full, fixtures_root) or blame
      if blame is None or blame.get("line") is None:
        blame = blame_from_gpu_interpreter(exc, message) or blame
      if blame is None or blame.get("line") is None:
        blame = blame_from_traceback(exc, fixtures_root) or blame
      result["blame"] = blame
    finally:
      signal.alarm(0)
      os.environ.pop("ORACLE_CHOICE", None)
      if force:  # the places of the launches that ran (file, line)
        result["ran"] = sorted(launches.sites)
        result["customParams"] = launches.custom_params
  return result


FORCED_RUN_TIMEOUT_S = 90


class ForcedRunTooLong(BaseException):
  """Raised by the alarm in a forced run (a BaseException: JAX's own
  `except Exception` around callbacks must not turn it into an error of
  JAX's)."""


def _forced_run_too_long(signum, frame):
  del signum, frame
  raise ForcedRunTooLong()


# Errors of tracing a run() whose Python needs a concrete value: the
# compiled path is forced by lowering the traced run(), so such a run()
# cannot be judged that way (never a verdict of JAX's on the kernel).
UNFORCEABLE = ("ConcretizationTypeError", "TracerArrayConversionError", "TracerBoolConversionError",
               "TracerIntegerConversionError")


def main(path, forced=True):
  """The fixture's run as written, its also= run, and (forced) one run per
  forced path, all in this process (one JAX import for all of them)."""
  warnings.simplefilter("ignore")
  path = os.path.abspath(path)
  header = parse_header(path)
  fixtures_root = os.path.dirname(path)
  import jax
  from jax._src import config
  mode_state = config.pallas_tpu_interpret_mode_context_manager.get_global()
  result = {"fixture": path, "header": header, "jaxVersion": jax.__version__}
  result.update(run_once(path, header))
  if header.get("also"):
    _fresh_process_state(fixtures_root, mode_state)
    result["also"] = run_once(path, header, choice=header["also"])
  if forced:
    result["forced"] = {}
    declared = unforced_declared(path)
    for force in forcing.FORCED_PATHS:
      reason = declared.get(force) or declared.get("all")
      if reason:  # not run: it says why (a run that hangs would take the fixture's other runs with it)
        result["forced"][force] = {"outcome": "declared-unforced", "message": reason}
        continue
      _fresh_process_state(fixtures_root, mode_state)
      result["forced"][force] = run_once(path, header, force=force)
  return result


def serve(timeout_s):
  """Runs the fixtures whose paths arrive on stdin, one line each, and writes
  one JSON line per fixture to stdout. JAX is imported once, here; each
  fixture runs in a child forked from this process, so it starts from the
  same state as a fresh process that imported JAX (no backend is made
  before the fork) and nothing it does reaches the next fixture."""
  import select
  import signal
  import tempfile
  warnings.simplefilter("ignore")
  import jax  # noqa: F401 -- imported once, before the forks
  import jax.numpy  # noqa: F401
  from jax.experimental import pallas  # noqa: F401
  from jax.experimental.pallas import mosaic_gpu  # noqa: F401
  from jax._src.pallas.mosaic_gpu.interpret import interpret_pallas_call  # noqa: F401
  forced = os.environ.get("ORACLE_FORCED", "1") != "0"
  out = os.fdopen(os.dup(1), "w")
  for line in sys.stdin:
    path = line.strip()
    if not path:
      continue
    read_end, write_end = os.pipe()
    log = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child: its own output goes to the log, the result to the pipe
      os.close(read_end)
      os.dup2(log.fileno(), 1)
      os.dup2(log.fileno(), 2)
      code = 0
      try:
        text = json.dumps(main(path, forced), sort_keys=True)
        with os.fdopen(write_end, "w") as pipe:
          pipe.write(text)
      except BaseException:  # noqa: BLE001 -- reported as the harness's error
        traceback.print_exc()
        code = 1
      sys.stdout.flush()
      sys.stderr.flush()
      os._exit(code)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout_s
    while True:
      ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
      if not ready:
        os.kill(pid, signal.SIGKILL)
        break
      chunk = os.read(read_end, 1 << 16)
      if not chunk:
        break
      chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    if text and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
      out.write(text + "\n")
    else:
      log.seek(0)
      why = log.read().decode(errors="replace")[-2000:]
      if not ready:
        why = f"timed out after {timeout_s}s"
      out.write(json.dumps({"fixture": path, "outcome": "harness-error", "message": why}) + "\n")
    log.close()
    out.flush()
  return 0


if __name__ == "__main__":
  if sys.argv[1:2] == ["--serve"]:
    sys.exit(serve(float(sys.argv[2])))
  print(json.dumps(main(sys.argv[1], forced=os.environ.get("ORACLE_FORCED", "1") != "0"), sort_keys=True))
