"""Unit tests of gpu/runner/pallas_lsp_heatmap.py (the compare heat maps) over
numpy arrays with known differences, and of the map in a whole compare run of
the runner script (both sides on the CPU: interpret vs gpu-interpret).

Run by test/suites/50-gpu.sh:  .venv/bin/python -m pytest test/gpu/test_heatmap.py
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER_DIR = os.path.join(ROOT, "gpu", "runner")
KERNELS = os.path.join(ROOT, "test", "gpu", "kernels")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(RUNNER_DIR, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


heatmap = load("pallas_lsp_heatmap")
runner = load("pallas_lsp_runner")


def error_map(a, b, **kw):
    return heatmap.error_map(np, np.asarray(a), np.asarray(b), **kw)


# ------------------------------------------------------------ small, exact ---


def test_small_2d_is_one_cell_per_element_with_exact_values():
    a = np.zeros((2, 3), np.float32)
    b = a.copy()
    b[0, 1] = 0.5
    b[1, 2] = -2.0
    a[1, 0] = 4.0
    b[1, 0] = 2.0  # |4-2| = 2, rel 2/4 = 0.5
    heat = error_map(a, b)
    assert heat["shape"] == [2, 3] and heat["view"] == [2, 3]
    assert heat["grid"] == [2, 3] and heat["block"] == [1, 1]
    assert heat["kind"] == "abs"
    assert heat["abs"] == [[0.0, 0.5, 0.0], [2.0, 0.0, 2.0]]
    assert heat["rel"] == [[0.0, 1.0, 0.0], [0.5, 0.0, 1.0]]
    assert heat["max"] == 2.0
    assert heat["mean"] == pytest.approx(4.5 / 6, rel=1e-3)
    assert heat["differing"] == 3
    # the first of the two largest (row-major): [1, 0]
    assert heat["worst"] == {"abs": 2.0, "rel": 0.5, "index": [1, 0], "first": 4.0, "second": 2.0}


def test_identical_outputs_give_an_all_zero_map():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    heat = error_map(a, a.copy())
    assert heat["abs"] == [[0.0] * 4] * 3 and heat["max"] == 0.0 and heat["differing"] == 0
    assert heat["worst"]["index"] == [0, 0] and heat["worst"]["abs"] == 0.0


def test_numbers_are_rounded_and_the_worst_values_keep_more_digits():
    a = np.array([1.0, 1.0], np.float64)
    b = np.array([1.0 + 1.23456e-6, 1.0], np.float64)
    heat = error_map(a, b)
    assert heat["abs"] == [[1.23e-06, 0.0]]
    assert heat["worst"]["second"] == 1.00000123 and heat["worst"]["first"] == 1.0


# ------------------------------------------------------------- ranks, sizes ---


def test_vector_is_one_row_and_scalar_one_cell():
    heat = error_map(np.zeros(5), np.array([0, 0, 3.0, 0, 0]))
    assert heat["view"] == [1, 5] and heat["grid"] == [1, 5] and heat["abs"] == [[0, 0, 3.0, 0, 0]]
    assert heat["worst"]["index"] == [2]
    scalar = error_map(np.float32(1.0), np.float32(1.5))
    assert scalar["shape"] == [] and scalar["grid"] == [1, 1] and scalar["abs"] == [[0.5]]
    assert scalar["worst"]["index"] == []


def test_rank_3_merges_leading_dims_and_reports_the_original_index():
    a = np.zeros((2, 3, 4), np.float32)
    b = a.copy()
    b[1, 2, 3] = 7.0
    heat = error_map(a, b)
    assert heat["shape"] == [2, 3, 4] and heat["view"] == [6, 4] and heat["grid"] == [6, 4]
    assert heat["abs"][5][3] == 7.0 and sum(map(sum, heat["abs"])) == 7.0
    assert heat["worst"]["index"] == [1, 2, 3] and heat["worst"]["second"] == 7.0


def test_large_output_is_bounded_and_each_cell_is_its_blocks_max():
    a = np.zeros((1000, 300), np.float32)
    b = a.copy()
    b[999, 299] = 1.0  # the very last element: in the last (partial) cell
    b[0, 0] = 0.25
    b[1, 1] = 0.5  # same block as [0, 0]: the max wins, not the sum or mean
    heat = error_map(a, b)
    assert heat["block"] == [16, 5] and heat["grid"] == [63, 60]
    assert len(heat["abs"]) == 63 and all(len(row) == 60 for row in heat["abs"])
    assert heat["abs"][0][0] == 0.5 and heat["abs"][62][59] == 1.0
    assert sum(v for row in heat["abs"] for v in row) == 1.5
    assert heat["worst"]["index"] == [999, 299] and heat["differing"] == 3
    # bounded whatever the shape: a long vector and a tall rank-4 array
    assert error_map(np.zeros(100_000), np.ones(100_000))["grid"] == [1, 64]
    tall = error_map(np.zeros((7, 9, 11, 130)), np.zeros((7, 9, 11, 130)))
    assert tall["view"] == [693, 130] and tall["grid"][0] <= 64 and tall["grid"][1] <= 64
    assert len(json.dumps(heat)) < 40_000  # small enough for the result document


def test_max_side_is_a_parameter():
    heat = error_map(np.zeros((10, 10)), np.eye(10), max_side=4)
    assert heat["block"] == [3, 3] and heat["grid"] == [4, 4]
    assert heat["abs"][3][3] == 1.0 and heat["abs"][0][3] == 0.0


# ------------------------------------------------------- non-float, NaN, inf ---


def test_integers_and_bools_get_a_mismatch_map():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = a.copy()
    b[1, 1] = 1000
    heat = error_map(a, b)
    assert heat["kind"] == "mismatch" and "rel" not in heat
    assert heat["abs"] == [[0, 0, 0], [0, 1, 0]]
    assert heat["max"] == 1 and heat["differing"] == 1 and heat["mean"] == pytest.approx(1 / 6, rel=1e-2)
    assert heat["worst"] == {"abs": 1, "index": [1, 1], "first": 4, "second": 1000}
    flags = error_map(np.array([True, False, True]), np.array([True, True, True]))
    assert flags["abs"] == [[0, 1, 0]] and flags["worst"]["first"] is False and flags["worst"]["second"] is True
    unsigned = error_map(np.array([1, 2], np.uint8), np.array([1, 2], np.uint8))
    assert unsigned["abs"] == [[0, 0]] and unsigned["max"] == 0


def test_nan_on_one_side_is_null_and_worst_matching_nans_are_equal():
    a = np.array([[np.nan, 1.0], [np.nan, 2.0]])
    b = np.array([[np.nan, 1.0], [5.0, 2.5]])
    heat = error_map(a, b)
    assert heat["abs"] == [[0.0, 0.0], [None, 0.5]]  # null: infinitely different
    assert heat["max"] is None and heat["worst"]["index"] == [1, 0]
    assert heat["worst"]["first"] == "nan" and heat["worst"]["second"] == 5.0
    json.dumps(heat, allow_nan=False)  # strict JSON: no NaN or Infinity tokens


def test_complex_outputs_use_the_modulus():
    heat = error_map(np.array([1 + 1j, 0j]), np.array([1 + 1j, 3 + 4j]))
    assert heat["abs"] == [[0.0, 5.0]] and isinstance(heat["worst"]["second"], str)


def test_empty_or_mismatched_shapes_give_no_map():
    assert error_map(np.zeros((0, 4)), np.zeros((0, 4))) is None
    assert error_map(np.zeros(3), np.zeros(4)) is None


# -------------------------------------------- with compare_outputs' entries ---


def test_attach_heat_maps_follows_compare_outputs():
    first = {"[0]": np.zeros((4, 4), np.float32), "[1]": np.zeros(3), "[2]": np.zeros(0)}
    second = {"[0]": np.full((4, 4), 0.125, np.float32), "[1]": np.zeros(4), "[2]": np.zeros(0)}
    comparisons = runner.compare_outputs(np, first, second)
    runner.attach_heat_maps(np, comparisons, first, second)
    by_path = {c["path"]: c for c in comparisons}
    assert by_path["[0]"]["heat_map"]["max"] == by_path["[0]"]["max_abs_diff"] == 0.125
    assert by_path["[1]"]["heat_map"] is None and not by_path["[1]"]["comparable"]
    assert by_path["[2]"]["heat_map"] is None  # comparable, but no elements
    # every key compare_outputs reported before is still there, unchanged
    assert set(by_path["[0]"]) == {"path", "comparable", "max_abs_diff", "max_rel_diff", "note", "heat_map"}


def test_at_most_max_maps_outputs_get_a_map():
    count = heatmap.MAX_MAPS + 3
    first = {f"[{i}]": np.zeros(2) for i in range(count)}
    comparisons = runner.compare_outputs(np, first, dict(first))
    heatmap.attach_heat_maps(np, comparisons, first, first)
    maps = [c["heat_map"] for c in comparisons]
    assert sum(m is not None for m in maps) == heatmap.MAX_MAPS and maps[-1] is None


# ------------------------------------------------- a whole compare run (CPU) ---


def run_compare(kernel, entry, runner_path):
    read, write = os.pipe()
    process = subprocess.run(
        [sys.executable, runner_path, "--file", os.path.join(KERNELS, kernel), "--entry", entry,
         "--mode", "compare", "--compare", "interpret,gpu-interpret", "--runs", "1",
         "--result-fd", str(write)],
        pass_fds=(write,), check=False, capture_output=True, text=True, timeout=300,
    )
    os.close(write)
    with os.fdopen(read) as stream:
        events = [json.loads(line) for line in stream.read().splitlines() if line.strip()]
    return process.returncode, events[-1], process.stderr


def test_compare_run_reports_a_heat_map_per_output():
    # add.py's main returns two (16, 128) float32 outputs; both interpreters on the CPU.
    code, result, stderr = run_compare("add.py", "main", os.path.join(RUNNER_DIR, "pallas_lsp_runner.py"))
    assert code == 0 and result["ok"], stderr[-2000:]
    assert len(result["comparisons"]) == 2
    for comparison, output in zip(result["comparisons"], result["modes"][0]["outputs"]):
        heat = comparison["heat_map"]
        assert heat["shape"] == output["shape"]
        rows, cols = heat["grid"]
        assert len(heat["abs"]) == rows and all(len(r) == cols for r in heat["abs"])
        assert heat["max"] == float(f"{comparison['max_abs_diff']:.3g}")  # 3 digits
        assert heat["kind"] == ("abs" if output["dtype"].startswith("float") else "mismatch")


def test_a_runner_copied_without_the_heat_map_module_still_compares(tmp_path):
    alone = tmp_path / "pallas_lsp_runner.py"
    with open(os.path.join(RUNNER_DIR, "pallas_lsp_runner.py")) as source:
        alone.write_text(source.read())
    code, result, stderr = run_compare("add.py", "main", str(alone))
    assert code == 0 and result["ok"], stderr[-2000:]
    assert [c["heat_map"] for c in result["comparisons"]] == [None, None]
    assert all(c["max_abs_diff"] is not None for c in result["comparisons"])
