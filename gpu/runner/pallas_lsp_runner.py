#!/usr/bin/env python3
"""pallas-lsp kernel runner: runs one entry function of a user's file with JAX.

This script runs in the USER's Python environment (the one with JAX), started
by pallas-lsp (gpu::runKernel) directly or through a launch template
(ssh, srun, ...). It depends on nothing but the standard library and JAX.

    pallas_lsp_runner.py --file F [--entry NAME] --mode compiled|interpret|gpu-interpret|compare
                         [--compare compiled,interpret] [--runs N]
                         (--result-fd N | --result-stdout) [--result-secret-stdin]
                         [--project-root DIR]
    pallas_lsp_runner.py --doctor (--result-fd N | --result-stdout)

Protocol: the result channel (a dedicated fd, or stdout with the user's stdout
folded into stderr) carries JSON lines. Zero or more
    {"event": "progress", "phase": "compiling"|"running", "mode": ..., "message": ...}
then exactly one
    {"event": "result", "version": 1, ...}
Empty lines carry nothing. With --result-secret-stdin, the first line of
stdin is the run's secret and every line carries it as "secret": the
supervisor ignores lines without it (written by the user's code).
The user's prints never reach the result channel. The exit code is 0 when
every mode ran, 1 when the entry (or the environment) failed, 2 for usage.

Modes force every pallas_call / pl.kernel / plgpu.kernel / core_map the entry
reaches, whatever `interpret=` the user's code passes:
  compiled       interpret off: Mosaic GPU on a CUDA GPU with compute capability >= 9.0
                 (checked with jax.devices() before anything runs)
  interpret      interpret=True (the HLO interpreter, which discharges state)
  gpu-interpret  interpret=InterpretGPUParams() (Mosaic GPU's own interpreter)
  compare        two of the above, and the largest absolute and relative
                 difference of every output
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import traceback

RESULT_VERSION = 1
MODES = ("compiled", "interpret", "gpu-interpret")
ENTRY_MARKER = "pallas-lsp: entry"
MOSAIC_GPU_MIN_CC = (9, 0)
MESSAGE_CAP = 8 * 1024
TRACEBACK_CAP = 32 * 1024
RUNNER_FILE = os.path.realpath(__file__)


# ---------------------------------------------------------------- channel ---


class ResultChannel:
    """JSON lines to a descriptor the user's code does not write to."""

    def __init__(self, fd: int, secret: str = ""):
        os.set_inheritable(fd, False)  # the user's subprocesses must not hold it
        self._stream = os.fdopen(fd, "w", encoding="utf-8", closefd=True)
        # This run's secret (read from stdin before any user code ran): the
        # supervisor believes only lines that carry it, so a line the user's
        # code writes to this descriptor cannot pass for a result.
        self._secret = secret

    def send(self, document: dict) -> None:
        if self._secret:
            document = dict(document, secret=self._secret)
        try:
            # The leading newline ends whatever partial line the user's code
            # may have left on the descriptor, so ours stays one JSON line.
            self._stream.write(
                "\n" + json.dumps(document, allow_nan=False, default=str) + "\n"
            )
            self._stream.flush()
        except (BrokenPipeError, OSError):
            pass  # the supervisor is gone; nothing left to tell

    def progress(
        self, phase: str, mode: str, message: str, percent: int | None = None
    ) -> None:
        event = {"event": "progress", "phase": phase, "mode": mode, "message": message}
        if percent is not None:
            event["percent"] = percent
        self.send(event)


def read_secret() -> str:
    """The run's secret: the first line of stdin (the supervisor writes it
    there and closes the pipe, so it is gone before the user's code runs)."""
    line = sys.stdin.buffer.readline(256)
    return line.decode("ascii", "replace").strip()


def open_channel(args) -> ResultChannel:
    secret = read_secret() if args.result_secret_stdin else ""
    if args.result_fd is not None:
        return ResultChannel(args.result_fd, secret)
    # --result-stdout: keep the real stdout for results; fold the user's
    # stdout (Python prints and C-level writes alike) into stderr.
    sys.stdout.flush()
    result_fd = os.dup(1)
    os.dup2(2, 1)
    return ResultChannel(result_fd, secret)


# ------------------------------------------------------------- exceptions ---


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return (
        text[:half]
        + f"\n[... {len(text) - limit} characters omitted ...]\n"
        + text[-half:]
    )


class FrameClassifier:
    """A frame is the user's when it lies in the project and outside any
    installed package, the standard library and this runner."""

    def __init__(self, project_root: str):
        self.root = os.path.realpath(project_root)
        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
        self.system = [os.path.realpath(p) + os.sep for p in prefixes if p]

    def is_user(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        if path == RUNNER_FILE or "site-packages" in path or "dist-packages" in path:
            return False
        if not path.startswith(self.root + os.sep) and path != self.root:
            return False
        # A virtual environment inside the project is still not user code.
        return not any(path.startswith(prefix) for prefix in self.system)


def describe_exception(exc: BaseException, classifier: FrameClassifier) -> dict:
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        frames.append(
            {
                "file": frame.filename,
                "line": frame.lineno or 0,
                "function": frame.name,
                "code": (frame.line or "").strip(),
                "user": classifier.is_user(frame.filename),
            }
        )
    # Errors raised from inside JAX's lowering may carry the user's frames
    # only in their context (JAX re-raises); surface them from the chain too.
    if not any(f["user"] for f in frames):
        seen = exc.__cause__ or exc.__context__
        while seen is not None and not any(f["user"] for f in frames):
            for frame in traceback.extract_tb(seen.__traceback__):
                if classifier.is_user(frame.filename):
                    frames.append(
                        {
                            "file": frame.filename,
                            "line": frame.lineno or 0,
                            "function": frame.name,
                            "code": (frame.line or "").strip(),
                            "user": True,
                        }
                    )
            seen = seen.__cause__ or seen.__context__
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "type": type(exc).__name__,
        "message": _cap(str(exc), MESSAGE_CAP),
        "frames": frames,
        "traceback": _cap(text, TRACEBACK_CAP),
    }


def synthetic_error(kind: str, message: str) -> dict:
    return {"type": kind, "message": message, "frames": [], "traceback": ""}


# ------------------------------------------------------------ environment ---


def _distribution_version(name: str) -> str | None:
    try:
        from importlib import metadata

        return metadata.version(name)
    except Exception:  # noqa: BLE001 - not installed, or broken metadata
        return None


def describe_environment(jax_module=None) -> dict:
    env = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": sys.platform,
        "jax": None,
        "jaxlib": None,
        "cuda_plugins": {},
        "devices": [],
        "backend": None,
        "gpu_interpret_mode": None,
    }
    for plugin in (
        "jax-cuda13-plugin",
        "jax-cuda12-plugin",
        "jax-cuda13-pjrt",
        "jax-cuda12-pjrt",
    ):
        version = _distribution_version(plugin)
        if version:
            env["cuda_plugins"][plugin] = version
    if jax_module is None:
        try:
            import jax as jax_module
        except Exception as exc:  # noqa: BLE001
            env["jax_error"] = f"{type(exc).__name__}: {exc}"
            return env
    env["jax"] = getattr(jax_module, "__version__", None)
    try:
        import jaxlib

        env["jaxlib"] = getattr(jaxlib, "__version__", None) or _distribution_version(
            "jaxlib"
        )
    except Exception:  # noqa: BLE001
        env["jaxlib"] = _distribution_version("jaxlib")
    try:
        env["backend"] = jax_module.default_backend()
        for device in jax_module.devices():
            env["devices"].append(
                {
                    "platform": device.platform,
                    "kind": getattr(device, "device_kind", ""),
                    "id": device.id,
                    "compute_capability": getattr(device, "compute_capability", None),
                }
            )
    except Exception as exc:  # noqa: BLE001
        env["devices_error"] = f"{type(exc).__name__}: {exc}"
    env["gpu_interpret_mode"] = gpu_interpret_params_class() is not None
    return env


def _parse_cc(value) -> tuple[int, int] | None:
    try:
        major, _, minor = str(value).partition(".")
        return int(major), int(minor or 0)
    except ValueError:
        return None


def compiled_mode_blocker(jax_module) -> str | None:
    """None when a GPU can run Mosaic GPU kernels; else why not, plainly."""
    try:
        gpus = [d for d in jax_module.devices() if d.platform in ("gpu", "cuda")]
    except Exception:  # noqa: BLE001
        gpus = []
    if not gpus:
        try:
            gpus = list(jax_module.devices("cuda"))
        except Exception:  # noqa: BLE001 - no CUDA backend at all
            gpus = []
    capable = [
        d
        for d in gpus
        if (_parse_cc(getattr(d, "compute_capability", "")) or (0, 0))
        >= MOSAIC_GPU_MIN_CC
    ]
    if capable:
        return None
    need = f"{MOSAIC_GPU_MIN_CC[0]}.{MOSAIC_GPU_MIN_CC[1]}"
    version = getattr(jax_module, "__version__", "?")
    if gpus:
        seen = ", ".join(
            f"{getattr(d, 'device_kind', d)} (compute capability {getattr(d, 'compute_capability', '?')})"
            for d in gpus
        )
        return (
            f"compiled mode needs an NVIDIA GPU with compute capability {need} or newer "
            f"(Mosaic GPU); JAX {version} sees only: {seen}."
        )
    try:
        seen = (
            ", ".join(sorted({d.platform for d in jax_module.devices()}))
            or "no devices"
        )
    except Exception as exc:  # noqa: BLE001
        seen = f"no devices ({exc})"
    return (
        f"compiled mode needs an NVIDIA GPU with compute capability {need} or newer "
        f"(Mosaic GPU), but JAX {version} in {sys.executable} sees no GPU (only: {seen}). "
        "Run on a GPU machine with a CUDA jaxlib (pip install 'jax[cuda13]'), for example "
        "through a launch template such as 'ssh gpu-box ...' or 'srun --gpus=1 ...'; "
        "or use the interpret mode."
    )


def gpu_interpret_params_class():
    """InterpretGPUParams wherever this JAX version keeps it (or None)."""
    candidates = (
        ("jax.experimental.pallas.mosaic_gpu", "InterpretGPUParams"),
        ("jax._src.pallas.mosaic_gpu.interpret.params", "InterpretGPUParams"),
    )
    for module_name, attr in candidates:
        try:
            module = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001, S112 - absent in this JAX version: try the next
            continue
        if hasattr(module, attr):
            return getattr(module, attr)
    return None


# ------------------------------------------------------------ mode forcing ---


class ModeForcer:
    """Forces the interpret mode of every Pallas entry point.

    Two levers, because JAX reads the mode at different times per API:
    - the public entry points are wrapped so `interpret=` is replaced, and the
      kernels they build are rebuilt lazily per mode (pallas_call bakes its
      mode in when it is built, often at import time);
    - the config `pallas_tpu_interpret_mode_context_manager`, which every
      entry point ORs with its argument and which is part of the jit cache
      key, is set to the mode's value, so cached traces are not reused across
      modes. The user's own `force_gpu_interpret_mode` is made a no-op.
    """

    PUBLIC = (
        ("jax.experimental.pallas", "pallas_call"),
        ("jax.experimental.pallas", "kernel"),
        ("jax.experimental.pallas", "core_map"),
        ("jax.experimental.pallas.mosaic_gpu", "kernel"),
    )
    FORCE_CONTEXTS = (
        ("jax.experimental.pallas.mosaic_gpu", "force_gpu_interpret_mode"),
        ("jax._src.pallas.mosaic_gpu.interpret.params", "force_gpu_interpret_mode"),
    )

    def __init__(self):
        self.mode: str | None = None
        self.patched: list[str] = []
        # While the entry runs: the kernel calls it makes, (fn, args, kwargs),
        # so the runner times those and nothing else. None: not recording.
        self.recorded: list | None = None
        self._config = None
        self._gpu_params = None

    def install(self) -> None:
        try:
            from jax._src import config as jax_config

            self._config = getattr(
                jax_config, "pallas_tpu_interpret_mode_context_manager", None
            )
        except Exception:  # noqa: BLE001
            self._config = None
        for module_name, attr in self.PUBLIC:
            module = _import_or_none(module_name)
            original = getattr(module, attr, None) if module else None
            if original is None or getattr(original, "__pallas_lsp_original__", None):
                continue
            setattr(module, attr, self._wrap_entry_point(original))
            self.patched.append(f"{module_name}.{attr}")
        for module_name, attr in self.FORCE_CONTEXTS:
            module = _import_or_none(module_name)
            if module is not None and hasattr(module, attr):
                setattr(module, attr, _ignored_force_context)
                self.patched.append(f"{module_name}.{attr}")

    def interpret_value(self, mode: str):
        if mode == "compiled":
            return False
        if mode == "interpret":
            return True
        if self._gpu_params is None:
            params = gpu_interpret_params_class()
            if params is None:
                raise RuntimeError(
                    "this JAX version has no GPU interpret mode (InterpretGPUParams)"
                )
            self._gpu_params = params()
        return self._gpu_params

    def set_mode(self, mode: str) -> None:
        value = self.interpret_value(mode)
        self.mode = mode
        if self._config is not None:
            self._config.set_global(None if mode == "compiled" else value)

    def _wrap_entry_point(self, original):
        forcer = self

        @functools.wraps(original)
        def entry_point(*args, **kwargs):
            if forcer.mode is None:
                return original(*args, **kwargs)

            def build(mode):
                return original(
                    *args, **{**kwargs, "interpret": forcer.interpret_value(mode)}
                )

            return _late_bound(forcer, build)

        entry_point.__pallas_lsp_original__ = original
        return entry_point


def _late_bound(forcer: ModeForcer, build):
    """Calls build(mode) for the current mode; wraps callables it returns so
    they too are rebuilt when the mode changes (decorator chains)."""
    result = build(forcer.mode)
    if not callable(result) or hasattr(result, "shape"):
        return result
    cache = {forcer.mode: result}

    def concrete():
        if forcer.mode not in cache:
            cache[forcer.mode] = build(forcer.mode)
        return cache[forcer.mode]

    @functools.wraps(result)
    def late(*args, **kwargs):
        value = _late_bound(
            forcer, lambda mode: _call_in_mode(concrete, mode, args, kwargs)
        )
        # A call that returned arrays ran a kernel: remember it for timing.
        if forcer.recorded is not None and len(forcer.recorded) < 16:
            if not callable(value) or hasattr(value, "shape"):
                forcer.recorded.append((late, args, kwargs))
        return value

    return late


def _call_in_mode(concrete, mode, args, kwargs):
    del mode  # concrete() reads the forcer's current mode
    return concrete()(*args, **kwargs)


@contextlib.contextmanager
def _ignored_force_context(*args, **kwargs):
    del args, kwargs
    yield


def _import_or_none(name: str):
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------- entry lookup ---


def find_marked_entry(path: str) -> list[str]:
    """Module-level functions marked `# pallas-lsp: entry` on the def line,
    a decorator line, or the comment lines right above them."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    lines = source.splitlines()
    marked = []
    for node in ast.parse(source, filename=path).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        candidates = list(range(first, node.lineno + 1))
        above = first - 1
        while above >= 1 and lines[above - 1].lstrip().startswith("#"):
            candidates.append(above)
            above -= 1
        if any(ENTRY_MARKER in lines[n - 1] for n in candidates if n - 1 < len(lines)):
            marked.append(node.name)
    return marked


def load_user_module(path: str):
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = os.path.splitext(os.path.basename(path))[0] or "pallas_lsp_entry"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_no_arguments(function, name: str) -> str | None:
    import inspect

    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    required = [
        p.name
        for p in signature.parameters.values()
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if required:
        return (
            f"entry '{name}' takes arguments ({', '.join(required)}); the runner calls it with none. "
            "Use a function without parameters (a test, a main) that builds its inputs."
        )
    return None


# -------------------------------------------------------------- outputs ---


def _finite_or_none(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def summarize_outputs(jax_module, numpy, result) -> tuple[list[dict], dict]:
    """Per leaf: shape, dtype, checksum; plus the host arrays for compare."""
    leaves, _ = jax_module.tree_util.tree_flatten_with_path(
        result, is_leaf=lambda x: x is None
    )
    summaries, arrays = [], {}
    for path, leaf in leaves:
        key = jax_module.tree_util.keystr(path)
        if leaf is None:
            summaries.append({"path": key, "kind": "none"})
            continue
        if not hasattr(leaf, "shape") and not isinstance(
            leaf, (int, float, complex, bool)
        ):
            summaries.append(
                {"path": key, "kind": "other", "type": type(leaf).__name__}
            )
            continue
        array = numpy.asarray(jax_module.device_get(leaf))
        arrays[key] = array
        summary = {
            "path": key,
            "kind": "array" if hasattr(leaf, "shape") else "scalar",
            "shape": list(array.shape),
            "dtype": str(array.dtype),
            "checksum": hashlib.sha256(
                numpy.ascontiguousarray(array).tobytes()
            ).hexdigest()[:16],
        }
        if array.dtype.kind in "biuf" and array.size:
            wide = array.astype(numpy.float64)
            summary["sum"] = _finite_or_none(numpy.sum(wide))
            summary["min"] = _finite_or_none(numpy.min(wide))
            summary["max"] = _finite_or_none(numpy.max(wide))
            if array.dtype.kind == "f":
                summary["nan_count"] = int(numpy.isnan(wide).sum())
                summary["inf_count"] = int(numpy.isinf(wide).sum())
        summaries.append(summary)
    return summaries, arrays


def compare_outputs(numpy, first: dict, second: dict) -> list[dict]:
    """Largest |a - b| and largest |a - b| / max(|a|, |b|) per output.

    The relative difference is symmetric (neither side is the reference) and
    counts an element only where either side is non-zero. Matching NaNs are
    equal; a NaN on one side only is reported in `note` and makes the
    difference infinite (reported as null)."""
    comparisons = []
    for path in list(first) + [p for p in second if p not in first]:
        entry = {
            "path": path,
            "comparable": False,
            "max_abs_diff": None,
            "max_rel_diff": None,
            "note": "",
        }
        if path not in first or path not in second:
            entry["note"] = "output missing on one side"
            comparisons.append(entry)
            continue
        a, b = first[path], second[path]
        if a.shape != b.shape:
            entry["note"] = f"shapes differ: {list(a.shape)} vs {list(b.shape)}"
            comparisons.append(entry)
            continue
        if a.dtype != b.dtype:
            entry["note"] = f"dtypes differ: {a.dtype} vs {b.dtype}"
            comparisons.append(entry)
            continue
        entry["comparable"] = True
        if a.size == 0:
            entry["max_abs_diff"] = entry["max_rel_diff"] = 0.0
            comparisons.append(entry)
            continue
        kind = numpy.complex128 if a.dtype.kind == "c" else numpy.float64
        x, y = a.astype(kind), b.astype(kind)
        both_nan = numpy.isnan(x) & numpy.isnan(y)
        one_nan = numpy.isnan(x) ^ numpy.isnan(y)
        with numpy.errstate(invalid="ignore", over="ignore"):
            diff = numpy.where(both_nan | (x == y), 0.0, numpy.abs(x - y))
            scale = numpy.maximum(numpy.abs(x), numpy.abs(y))
            rel = numpy.where(scale > 0, diff / numpy.where(scale > 0, scale, 1.0), 0.0)
        if one_nan.any():
            entry["note"] = f"NaN on one side only at {int(one_nan.sum())} element(s)"
        entry["max_abs_diff"] = (
            _finite_or_none(numpy.nanmax(diff)) if not one_nan.any() else None
        )
        entry["max_rel_diff"] = (
            _finite_or_none(numpy.nanmax(rel)) if not one_nan.any() else None
        )
        comparisons.append(entry)
    return comparisons


def attach_heat_maps(numpy, comparisons: list[dict], first: dict, second: dict) -> None:
    """Per-output error maps from pallas_lsp_heatmap.py beside this file,
    loaded by path (a user's module of that name cannot shadow it). A runner
    copied alone to a remote machine reports "heat_map": null."""
    path = os.path.join(os.path.dirname(RUNNER_FILE), "pallas_lsp_heatmap.py")
    spec = importlib.util.spec_from_file_location("pallas_lsp_heatmap", path)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except OSError:
        for entry in comparisons:
            entry["heat_map"] = None
        return
    module.attach_heat_maps(numpy, comparisons, first, second)


# -------------------------------------------------------------- running ---


def run_mode(
    jax_module, numpy, channel, forcer, classifier, entry, mode: str, runs: int
):
    """Runs the entry in one mode. Returns (mode result, host arrays)."""
    result = {"mode": mode, "ok": False, "error": None, "timing": None, "outputs": []}
    if mode == "compiled":
        blocker = compiled_mode_blocker(jax_module)
        if blocker:
            result["error"] = synthetic_error("NoCapableGPU", blocker)
            return result, {}
    try:
        forcer.set_mode(mode)
    except RuntimeError as exc:
        result["error"] = synthetic_error("ModeUnavailable", str(exc))
        return result, {}

    def finish(value):
        return jax_module.block_until_ready(value)

    # The entry is called as the user wrote it (never wrapped in jax.jit:
    # their prints show values, not tracers). What is timed is the kernels it
    # calls eagerly (recorded by the mode forcer's wrappers), or the function
    # it returns as `(fn, args)`: each call repeated with block_until_ready.
    channel.progress("compiling", mode, f"calling the entry ({mode})")
    forcer.recorded = []
    start = time.perf_counter()
    try:
        output = entry()
        returned = _returned_function(output)
        if returned is not None:
            function, call_args = returned
            output = finish(function(*call_args))
            targets = [(function, call_args, {})]
            method = "returned function"
        else:
            output = finish(output)
            targets = [c for c in forcer.recorded if _concrete(jax_module, c)]
            method = "kernels called" if targets else "none"
        compile_s = time.perf_counter() - start
        forcer.recorded = None
        times = []
        for index in range(runs if targets else 0):
            channel.progress(
                "running",
                mode,
                f"run {index + 1}/{runs} ({mode})",
                int(100 * index / max(runs, 1)),
            )
            start = time.perf_counter()
            for function, call_args, call_kwargs in targets:
                finish(function(*call_args, **call_kwargs))
            times.append(time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - the user's error is the result
        forcer.recorded = None
        result["error"] = describe_exception(exc, classifier)
        return result, {}
    result["timing"] = {
        "method": method,
        "compile_s": compile_s,
        "run_s_median": statistics.median(times) if times else None,
        "runs": len(times),
    }
    try:
        result["outputs"], arrays = summarize_outputs(jax_module, numpy, output)
    except Exception as exc:  # noqa: BLE001
        result["error"] = describe_exception(exc, classifier)
        return result, {}
    result["ok"] = True
    return result, arrays


def _returned_function(output):
    """`(fn, args)` returned by the entry: the function to time and its
    arguments (the convention JAX's own benchmarks and the oracle use)."""
    if (
        isinstance(output, tuple)
        and len(output) == 2
        and callable(output[0])
        and not hasattr(output[0], "shape")
        and isinstance(output[1], (tuple, list))
    ):
        return output[0], tuple(output[1])
    return None


def _concrete(jax_module, call) -> bool:
    """A recorded kernel call can be repeated: no tracer among its arguments
    (a call made inside the user's jax.jit sees tracers)."""
    _, args, kwargs = call
    tracer = getattr(getattr(jax_module, "core", None), "Tracer", None)
    if tracer is None:
        return False
    leaves = jax_module.tree_util.tree_leaves((args, kwargs))
    return not any(isinstance(leaf, tracer) for leaf in leaves)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pallas_lsp_runner.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--file")
    parser.add_argument("--entry", default="")
    parser.add_argument("--mode", choices=MODES + ("compare",), default="interpret")
    parser.add_argument(
        "--compare", default="compiled,interpret", help="the two modes compare runs"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project-root", default="")
    parser.add_argument(
        "--doctor", action="store_true", help="report the environment only"
    )
    channel_group = parser.add_mutually_exclusive_group(required=True)
    channel_group.add_argument("--result-fd", type=int)
    channel_group.add_argument("--result-stdout", action="store_true")
    parser.add_argument(
        "--result-secret-stdin",
        action="store_true",
        help="read the run's secret from the first line of stdin; every line "
        "on the result channel carries it",
    )
    args = parser.parse_args(argv)

    try:
        channel = open_channel(args)
    except OSError as exc:
        print(
            f"pallas_lsp_runner: cannot open the result channel: {exc}", file=sys.stderr
        )
        return 2

    if args.doctor:
        channel.send(
            {
                "event": "result",
                "version": RESULT_VERSION,
                "environment": describe_environment(),
            }
        )
        return 0

    document = {
        "event": "result",
        "version": RESULT_VERSION,
        "file": args.file,
        "entry": args.entry,
        "mode": args.mode,
        "ok": False,
        "setup_error": None,
        "modes": [],
        "comparisons": [],
        "patched": [],
        "environment": None,
    }

    def fail_setup(error: dict) -> int:
        document["setup_error"] = error
        channel.send(document)
        return 1

    if not args.file or not os.path.isfile(args.file):
        return fail_setup(
            synthetic_error("FileNotFoundError", f"no such file: {args.file}")
        )
    modes = [args.mode]
    if args.mode == "compare":
        modes = [m.strip() for m in args.compare.split(",") if m.strip()]
        if len(modes) != 2 or any(m not in MODES for m in modes):
            return fail_setup(
                synthetic_error(
                    "UsageError",
                    f"--compare needs two of {', '.join(MODES)}; got '{args.compare}'",
                )
            )
    classifier = FrameClassifier(
        args.project_root or os.path.dirname(os.path.abspath(args.file))
    )

    channel.progress("started", "", "importing JAX")
    try:
        import jax
        import numpy
    except Exception as exc:  # noqa: BLE001
        return fail_setup(
            synthetic_error(
                "JaxNotFound",
                f"JAX cannot be imported by {sys.executable}: {type(exc).__name__}: {exc}",
            )
        )
    document["environment"] = describe_environment(jax)

    forcer = ModeForcer()
    forcer.install()  # before the user's import, so `from ... import pallas_call` binds the wrapper
    document["patched"] = forcer.patched
    # Import under interpret: safe on any machine should the module run a
    # kernel at import time. Kernels built now are rebuilt per mode later.
    forcer.set_mode("interpret")

    channel.progress("started", "", f"importing {os.path.basename(args.file)}")
    try:
        module = load_user_module(args.file)
    except BaseException as exc:  # noqa: BLE001 - SystemExit in the user's module too
        return fail_setup(describe_exception(exc, classifier))

    entry_name = args.entry
    if not entry_name:
        marked = find_marked_entry(args.file)
        if len(marked) != 1:
            why = (
                "none is" if not marked else f"{len(marked)} are ({', '.join(marked)})"
            )
            return fail_setup(
                synthetic_error(
                    "EntryNotFound",
                    f"no entry given and {why} marked '# {ENTRY_MARKER}' in {args.file}; "
                    "pass --entry NAME or mark exactly one function",
                )
            )
        entry_name = marked[0]
    document["entry"] = entry_name
    entry = getattr(module, entry_name, None)
    if not callable(entry):
        return fail_setup(
            synthetic_error(
                "EntryNotFound", f"{args.file} has no function '{entry_name}'"
            )
        )
    problem = check_no_arguments(entry, entry_name)
    if problem:
        return fail_setup(synthetic_error("EntryTakesArguments", problem))

    arrays_per_mode = []
    for mode in modes:
        try:
            mode_result, arrays = run_mode(
                jax, numpy, channel, forcer, classifier, entry, mode, max(args.runs, 1)
            )
        except BaseException as exc:  # noqa: BLE001 - SystemExit/KeyboardInterrupt from the entry
            mode_result = {
                "mode": mode,
                "ok": False,
                "error": describe_exception(exc, classifier),
                "timing": None,
                "outputs": [],
            }
            arrays = {}
        document["modes"].append(mode_result)
        arrays_per_mode.append(arrays)
    if args.mode == "compare" and all(m["ok"] for m in document["modes"]):
        document["comparisons"] = compare_outputs(
            numpy, arrays_per_mode[0], arrays_per_mode[1]
        )
        attach_heat_maps(numpy, document["comparisons"], *arrays_per_mode)
    document["ok"] = all(m["ok"] for m in document["modes"])
    channel.progress("finished", "", "done")
    channel.send(document)
    return 0 if document["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
