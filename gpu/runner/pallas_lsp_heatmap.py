"""Small per-element error maps ("heat maps") for the runner's `compare` mode.

A compare run reports, per output, the largest difference; this module adds
WHERE the two runs differ, small enough to travel in the result JSON and to
draw in an editor: the output is viewed as 2-D, cut into at most
MAX_SIDE x MAX_SIDE blocks, and each cell holds the largest difference in its
block (so one bad element is never averaged away).

Float and complex outputs get |a - b| (`abs`) and |a - b| / max(|a|, |b|)
(`rel`, the symmetric form compare_outputs reports); other dtypes (int,
unsigned, bool) get a 0/1 mismatch map, because "off by one" in an index
tensor is as wrong as "off by a million". The layout is documented in
gpu/README.md ("compare heat maps").

It depends on nothing but the standard library and the numpy module the
caller passes (JAX's), like pallas_lsp_runner.py, which imports it.
"""

from __future__ import annotations

import math

MAX_SIDE = 64  # cells per side of the grid
MAX_MAPS = 16  # outputs per run with a map: a 64x64 map is up to ~80 KB of JSON
DIGITS = 3  # significant digits of every number in a map: the JSON stays small
ELEMENT_DIGITS = 9  # the worst element's own values: enough to see them differ


def _round(value: float, digits: int = DIGITS) -> float | int | None:
    """A finite number with `digits` significant digits; None for inf/NaN
    (JSON has no infinity; the map's documentation says what null means)."""
    value = float(value)
    if not math.isfinite(value):
        return None
    if value == 0:
        return 0  # "0", not "0.0": most cells of a good run are zero
    return float(f"{value:.{digits}g}")


def attach_heat_maps(numpy, comparisons: list[dict], first: dict, second: dict) -> None:
    """Adds "heat_map" to every entry of compare_outputs' list: the map of a
    comparable output with elements (the first MAX_MAPS of them), else null.
    A map that cannot be computed is null too: it never fails the run."""
    made = 0
    for entry in comparisons:
        entry["heat_map"] = None
        if not entry.get("comparable") or made >= MAX_MAPS:
            continue
        try:
            entry["heat_map"] = error_map(
                numpy, first[entry["path"]], second[entry["path"]]
            )
        except (ValueError, TypeError, MemoryError) as exc:
            entry["note"] = (entry.get("note", "") + f" (no heat map: {exc})").strip()
        made += entry["heat_map"] is not None


def view_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    """The 2-D view of a shape: a scalar is 1x1, a vector one row, and a
    higher rank merges its leading dimensions into rows (last dim = columns)."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, int(shape[0])
    return math.prod(int(d) for d in shape[:-1]), int(shape[-1])


def grid_for(
    rows: int, cols: int, max_side: int = MAX_SIDE
) -> tuple[list[int], list[int]]:
    """(grid [cells down, cells across], block [rows, cols] of elements per
    cell). Blocks are equal; the last row/column of cells may cover fewer
    elements when the size is not a multiple."""
    block_r = max(1, math.ceil(rows / max_side))
    block_c = max(1, math.ceil(cols / max_side))
    return [math.ceil(rows / block_r), math.ceil(cols / block_c)], [block_r, block_c]


def _block_max(numpy, values, grid, block):
    """Max over each block of a non-negative 2-D array without NaNs, padded
    with zeros up to whole blocks (zeros never win a max of |differences|)."""
    (gr, gc), (br, bc) = grid, block
    padded = numpy.zeros((gr * br, gc * bc), dtype=values.dtype)
    padded[: values.shape[0], : values.shape[1]] = values
    return padded.reshape(gr, br, gc, bc).max(axis=(1, 3))


def _cells(block_values) -> list[list[float | None]]:
    return [[_round(v) for v in row] for row in block_values.tolist()]


def error_map(numpy, first, second, max_side: int = MAX_SIDE) -> dict | None:
    """The heat map of two same-shape, same-dtype arrays, or None when there
    is nothing to draw (no elements). `first` and `second` are the two modes'
    host arrays in the order the run names them."""
    if first.shape != second.shape or first.size == 0:
        return None
    rows, cols = view_2d(first.shape)
    grid, block = grid_for(rows, cols, max_side)
    a2, b2 = first.reshape(rows, cols), second.reshape(rows, cols)
    heat = {
        "shape": [int(d) for d in first.shape],
        "view": [rows, cols],
        "grid": grid,
        "block": block,
    }
    if first.dtype.kind in "fc":
        kind = numpy.complex128 if first.dtype.kind == "c" else numpy.float64
        x, y = a2.astype(kind), b2.astype(kind)
        both_nan = numpy.isnan(x) & numpy.isnan(y)
        one_nan = numpy.isnan(x) ^ numpy.isnan(y)
        with numpy.errstate(invalid="ignore", over="ignore", divide="ignore"):
            diff = numpy.where(both_nan | (x == y), 0.0, numpy.abs(x - y))
            diff = numpy.where(one_nan, numpy.inf, diff)  # no NaN left: max() is exact
            scale = numpy.maximum(numpy.abs(x), numpy.abs(y))
            rel = numpy.where(scale > 0, diff / numpy.where(scale > 0, scale, 1.0), 0.0)
            rel = numpy.where(numpy.isnan(rel), numpy.inf, rel)  # inf / inf
        heat["kind"] = "abs"
        heat["abs"] = _cells(_block_max(numpy, diff, grid, block))
        heat["rel"] = _cells(_block_max(numpy, rel, grid, block))
        heat["max"] = _round(diff.max())
        heat["mean"] = _round(diff.mean())
        heat["differing"] = int(numpy.count_nonzero(diff))
        flat = int(numpy.argmax(diff))  # the first of equal worst elements
        worst = {
            "abs": _round(diff.flat[flat]),
            "rel": _round(rel.flat[flat]),
        }
    else:
        mismatch = (a2 != b2).astype(numpy.uint8)
        heat["kind"] = "mismatch"
        heat["abs"] = [
            [int(v) for v in row]
            for row in _block_max(numpy, mismatch, grid, block).tolist()
        ]
        heat["max"] = int(mismatch.max())
        heat["mean"] = _round(mismatch.mean())  # the fraction of elements that differ
        heat["differing"] = int(numpy.count_nonzero(mismatch))
        flat = int(numpy.argmax(mismatch))  # the first mismatch (element 0 if none)
        worst = {"abs": int(mismatch.flat[flat])}
    worst["index"] = (
        [int(i) for i in numpy.unravel_index(flat, first.shape)] if first.ndim else []
    )
    worst["first"] = _element(first.reshape(-1)[flat])
    worst["second"] = _element(second.reshape(-1)[flat])
    heat["worst"] = worst
    return heat


def _element(value):
    """One element as JSON: bool, int, a rounded float, or str (complex, NaN, inf)."""
    item = value.item() if hasattr(value, "item") else value
    if isinstance(item, (bool, int)):
        return item
    if isinstance(item, float):
        return _round(item, ELEMENT_DIGITS) if math.isfinite(item) else str(item)
    return str(item)
