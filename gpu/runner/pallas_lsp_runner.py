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

Protocol: the result channel (a dedicated fd, or stdout) carries JSON lines.
Zero or more
    {"event": "progress", "phase": "compiling"|"running", "mode": ..., "message": ...}
and, with --result-stdout only, what the user's code writes to stdout, as written:
    {"event": "output", "stream": "stdout", "text": ...}
then exactly one
    {"event": "result", "version": 1, ...}
Empty lines carry nothing. With --result-secret-stdin, the first line of
stdin is the run's secret and every line carries it as "secret": the
supervisor ignores lines without it (written by the user's code).
The user's prints never pass for protocol lines. The exit code is 0 when
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
import importlib.util
import os
import statistics
import sys
import time

RESULT_VERSION = 1
MODES = ("compiled", "interpret", "gpu-interpret")
ENTRY_MARKER = "pallas-lsp: entry"
RUNNER_FILE = os.path.realpath(__file__)


def _sibling(name: str):
    """A part of the runner beside this file (pallas_lsp_channel.py, ...),
    loaded by path so that a user's module of the same name cannot shadow it;
    registered in sys.modules so the parts that import each other share it."""
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(os.path.dirname(RUNNER_FILE), name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The runner's parts, one job each; their names are re-exported here (the
# tests and the documentation call them pallas_lsp_runner.NAME).
_channel = _sibling("pallas_lsp_channel")
_errors = _sibling("pallas_lsp_errors")
_environment = _sibling("pallas_lsp_environment")
_modes = _sibling("pallas_lsp_modes")
_outputs = _sibling("pallas_lsp_outputs")
ResultChannel, read_secret, open_channel = (
    _channel.ResultChannel,
    _channel.read_secret,
    _channel.open_channel,
)
FrameClassifier, describe_exception, synthetic_error = (
    _errors.FrameClassifier,
    _errors.describe_exception,
    _errors.synthetic_error,
)
MESSAGE_CAP, TRACEBACK_CAP = _errors.MESSAGE_CAP, _errors.TRACEBACK_CAP
describe_environment, compiled_mode_blocker, gpu_interpret_params_class = (
    _environment.describe_environment,
    _environment.compiled_mode_blocker,
    _environment.gpu_interpret_params_class,
)
MOSAIC_GPU_MIN_CC = _environment.MOSAIC_GPU_MIN_CC
ModeForcer = _modes.ModeForcer
summarize_outputs, compare_outputs, attach_heat_maps = (
    _outputs.summarize_outputs,
    _outputs.compare_outputs,
    _outputs.attach_heat_maps,
)


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
