"""Unit tests of gpu/runner/pallas_lsp_runner.py in the real Python with JAX.

Run by test/suites/50-gpu.sh:  .venv/bin/python -m pytest test/gpu/test_runner.py
"""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "gpu", "runner", "pallas_lsp_runner.py")
KERNELS = os.path.join(ROOT, "test", "gpu", "kernels")

spec = importlib.util.spec_from_file_location("pallas_lsp_runner", RUNNER)
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)


def run_runner(*args, channel="fd"):
    """Runs the runner script; returns (exit code, events, stdout, stderr)."""
    read, write = os.pipe()
    extra = ["--result-fd", str(write)] if channel == "fd" else ["--result-stdout"]
    process = subprocess.run(
        [sys.executable, RUNNER, *args, *extra],
        pass_fds=(write,),
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    os.close(write)
    with os.fdopen(read) as stream:
        channel_text = stream.read()
    if channel == "stdout":
        channel_text = process.stdout
    events = [json.loads(line) for line in channel_text.splitlines() if line.strip()]
    return process.returncode, events, process.stdout, process.stderr


# ---------------------------------------------------------------- compare ---


def test_compare_identical_is_zero():
    a = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
    [entry] = runner.compare_outputs(np, a, {"x": a["x"].copy()})
    assert (
        entry["comparable"]
        and entry["max_abs_diff"] == 0.0
        and entry["max_rel_diff"] == 0.0
    )


def test_compare_reports_largest_abs_and_rel():
    a = {"y": np.array([1.0, 10.0, 0.0, 100.0])}
    b = {"y": np.array([1.5, 10.0, 0.0, 101.0])}
    [entry] = runner.compare_outputs(np, a, b)
    assert entry["max_abs_diff"] == pytest.approx(1.0)
    assert entry["max_rel_diff"] == pytest.approx(0.5 / 1.5)


def test_compare_nan_handling_and_mismatches():
    nan = float("nan")
    same = runner.compare_outputs(
        np, {"n": np.array([nan, 1.0])}, {"n": np.array([nan, 1.0])}
    )
    assert same[0]["max_abs_diff"] == 0.0 and same[0]["note"] == ""
    one_side = runner.compare_outputs(
        np, {"n": np.array([nan, 1.0])}, {"n": np.array([0.0, 1.0])}
    )
    assert one_side[0]["max_abs_diff"] is None and "NaN" in one_side[0]["note"]
    shapes = runner.compare_outputs(np, {"s": np.zeros(3)}, {"s": np.zeros(4)})
    assert not shapes[0]["comparable"] and "shapes differ" in shapes[0]["note"]
    dtypes = runner.compare_outputs(
        np, {"d": np.zeros(3, np.float32)}, {"d": np.zeros(3, np.int32)}
    )
    assert "dtypes differ" in dtypes[0]["note"]
    missing = runner.compare_outputs(np, {"a": np.zeros(1)}, {"b": np.zeros(1)})
    assert [m["note"] for m in missing] == ["output missing on one side"] * 2


# ------------------------------------------------------------ entry marks ---


def test_marked_entry_forms(tmp_path):
    source = tmp_path / "k.py"
    source.write_text(
        textwrap.dedent(
            """\
            import functools

            # pallas-lsp: entry
            # (a comment block above)
            @functools.lru_cache
            def first():
                pass

            def second():  # pallas-lsp: entry
                pass

            def unmarked():
                pass

            class C:
                def method(self):  # pallas-lsp: entry (not module level)
                    pass
            """
        )
    )
    assert runner.find_marked_entry(str(source)) == ["first", "second"]


def test_frame_classifier(tmp_path):
    classifier = runner.FrameClassifier(str(tmp_path))
    assert classifier.is_user(str(tmp_path / "kernel.py"))
    assert not classifier.is_user(runner.__file__)
    assert not classifier.is_user(np.__file__)
    assert not classifier.is_user("<string>")
    assert not classifier.is_user("/elsewhere/kernel.py")


# ------------------------------------------------------------ mode forcing ---


def test_mode_forcer_rebuilds_kernels_built_before_the_mode_changed():
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    forcer = runner.ModeForcer()
    forcer.install()
    try:
        forcer.set_mode("interpret")

        def body(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        # Built under interpret with the user's interpret=False, as at import.
        kernel = pl.pallas_call(
            body, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=False
        )
        assert float(kernel(jnp.zeros(8, jnp.float32)).sum()) == 8.0
        forcer.set_mode("compiled")
        with pytest.raises(Exception, match="Only interpret mode is supported on CPU"):
            kernel(jnp.zeros(8, jnp.float32))
        forcer.set_mode("interpret")
        assert float(kernel(jnp.zeros(8, jnp.float32)).sum()) == 8.0
    finally:
        forcer.set_mode("interpret")
        from jax._src import config

        config.pallas_tpu_interpret_mode_context_manager.set_global(None)


# --------------------------------------------------------- the whole script ---


def test_script_interpret_run_and_progress():
    code, events, stdout, _ = run_runner(
        "--file", os.path.join(KERNELS, "add.py"), "--mode", "interpret", "--runs", "2"
    )
    assert code == 0
    phases = [e["phase"] for e in events if e["event"] == "progress"]
    assert (
        phases[0] == "started"
        and "compiling" in phases
        and "running" in phases
        and phases[-1] == "finished"
    )
    result = events[-1]
    assert result["event"] == "result" and result["ok"] and result["entry"] == "main"
    assert result["modes"][0]["timing"]["runs"] == 2
    assert stdout == ""


def test_script_result_stdout_frames_user_prints_as_output_events():
    code, events, stdout, stderr = run_runner(
        "--file",
        os.path.join(KERNELS, "mgpu_kernel.py"),
        "--entry",
        "main",
        "--runs",
        "1",
        channel="stdout",
    )
    assert code == 0
    # only protocol lines (and the empty lines that keep them apart)
    assert all(json.loads(line) for line in stdout.splitlines() if line.strip())
    # The entry's prints are framed as output events, before the result
    # (launch templates such as ssh forward only stdout: issue 35).
    printed = "".join(e["text"] for e in events if e["event"] == "output")
    assert "hello from the entry" in printed
    assert "hello from the entry" not in stderr
    assert events[-1]["event"] == "result" and events[-1]["ok"]


def test_script_usage_errors():
    code, events, _, _ = run_runner(
        "--file",
        os.path.join(KERNELS, "add.py"),
        "--mode",
        "compare",
        "--compare",
        "interpret",
    )
    assert code == 1 and events[-1]["setup_error"]["type"] == "UsageError"
    code, events, _, _ = run_runner("--file", "/nonexistent.py")
    assert code == 1 and events[-1]["setup_error"]["type"] == "FileNotFoundError"


def test_doctor_document():
    code, events, _, _ = run_runner("--doctor")
    assert code == 0
    env = events[-1]["environment"]
    import jax

    assert env["jax"] == jax.__version__
    assert env["devices"] and env["python"] == sys.version.split()[0]


# Issue 15: the entry is called as the user wrote it (not wrapped in
# jax.jit), and only the kernels it calls, or the function it returns as
# (fn, args), are timed.
ENTRY_AS_WRITTEN = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl


    def double_kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0


    double = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))


    def prints():
        x = jnp.arange(4, dtype=jnp.float32)
        print("value:", x)
        return x + 1


    def calls_kernel():
        return double(jnp.ones((8, 128), jnp.float32))


    def returns_function():
        return jax.jit(lambda v: double(v) + 1.0), (jnp.ones((8, 128), jnp.float32),)
    """
)


def test_entry_called_as_written_and_only_kernels_timed(tmp_path):
    path = tmp_path / "entries.py"
    path.write_text(ENTRY_AS_WRITTEN)

    code, events, _, stderr = run_runner(
        "--file", str(path), "--entry", "prints", "--mode", "interpret", "--runs", "3", channel="stdout"
    )
    result = events[-1]
    assert code == 0 and result["ok"], result
    # With the result on stdout the entry's prints arrive as output events.
    printed = "".join(e["text"] for e in events if e["event"] == "output")
    assert "value: [0. 1. 2. 3.]" in printed and "Tracer" not in printed + stderr
    assert printed.count("value:") == 1  # called once, not repeated for timing
    out = result["modes"][0]["outputs"][0]
    assert out["shape"] == [4] and out["sum"] == 10.0
    assert result["modes"][0]["timing"]["method"] == "none"
    assert result["modes"][0]["timing"]["runs"] == 0

    code, events, _, _ = run_runner(
        "--file", str(path), "--entry", "calls_kernel", "--mode", "interpret", "--runs", "2"
    )
    timing = events[-1]["modes"][0]["timing"]
    assert code == 0 and timing["method"] == "kernels called" and timing["runs"] == 2, events[-1]

    code, events, _, _ = run_runner(
        "--file", str(path), "--entry", "returns_function", "--mode", "interpret", "--runs", "2"
    )
    mode = events[-1]["modes"][0]
    assert code == 0 and mode["timing"]["method"] == "returned function" and mode["timing"]["runs"] == 2
    assert mode["outputs"][0]["sum"] == 3.0 * 8 * 128  # fn(*args), not the tuple
