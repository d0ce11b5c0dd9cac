"""The kernel runner's (pallas_lsp_runner.py) view of outputs: a summary of
each (shape, dtype, statistics) and, for `compare`, the differences between
two modes (with heat maps from pallas_lsp_heatmap.py).

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os


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
    path = os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "pallas_lsp_heatmap.py"
    )
    spec = importlib.util.spec_from_file_location("pallas_lsp_heatmap", path)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except OSError:
        for entry in comparisons:
            entry["heat_map"] = None
        return
    module.attach_heat_maps(numpy, comparisons, first, second)
