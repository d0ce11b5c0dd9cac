"""The GPU runner in the editor (issue 6), through the real binary over pipes:
code lenses, `pallas.run` with work-done progress, cancellation from
$/cancelRequest and from the progress, timeouts, launch templates, run
diagnostics, `pallas.doctor`, the user's JAX knowledge and the device probe
(PLS003 with the fake CUDA driver from test/gpu).

Runs execute for real with the JAX of PALLAS_LSP_PYTHON (on CPU here)."""

import json
import os
import pathlib
import subprocess
import textwrap
import time

import pytest
from lspclient import BIN, StdioServer

PYTHON = os.environ.get("PALLAS_LSP_PYTHON", "")
ROOT = pathlib.Path(__file__).resolve().parents[2]

# The bootstrap installs a Python with JAX: without it these tests fail (a
# skip would hide a broken setup, issue 19).
@pytest.fixture
def _python_with_jax():
  if not PYTHON or not os.access(PYTHON, os.X_OK):
    pytest.fail("PALLAS_LSP_PYTHON (a Python with JAX) is not set: run scripts/run-tests.sh")


needs_jax = pytest.mark.usefixtures("_python_with_jax")

KERNEL = textwrap.dedent('''\
    import os
    import time

    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl


    def add_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...] * 2.0


    def add(x, y):
        return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)


    def main():
        x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
        return add(x, jnp.ones_like(x))


    def helper_that_fails(x):
        raise ValueError("bad block shape " + str(x))


    def failing():
        return helper_that_fails(3)


    def hang():
        with open(os.environ["PALLAS_TEST_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
        while True:
            time.sleep(0.1)


    def needs_template():
        assert os.environ.get("PALLAS_TEST_TEMPLATE") == "yes", "not launched through the template"
        return main()
    ''')


def open_doc(client, uri, text, version=1):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})


def make_server(tmp_path, init_options=None, extra_env=None, capabilities=None, init_params=None):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PALLAS_LSP_PIDFILE_DIR": str(tmp_path)}
    env.update(extra_env or {})
    s = StdioServer("--debounce-ms", "5", extra_env=env)
    s.auto_reply["window/workDoneProgress/create"] = None
    s.auto_reply["workspace/configuration"] = [None]
    caps = capabilities if capabilities is not None else {"window": {"workDoneProgress": True}}
    params = {}
    if init_options is not None:
        params["initializationOptions"] = init_options
    params.update(init_params or {})
    result = s.initialize(caps, **params)
    return s, result


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    return path


def run_cmd(client, uri, entry, mode, id=None):
    return client.request_async("workspace/executeCommand", {
        "command": "pallas.run", "arguments": [{"uri": uri, "entry": entry, "mode": mode}]}, id=id)


def progress_values(client, token):
    return [m["params"]["value"] for m in client.seen
            if m.get("method") == "$/progress" and m["params"]["token"] == token]


def line_of(text, needle):
    for i, line in enumerate(text.splitlines()):
        if needle in line:
            return i
    raise AssertionError(needle)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes only once reaped; read its state.
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        return state != "Z"
    except OSError:
        return False


# ---------------------------------------------------------------- lenses ---

LENS_SOURCE = textwrap.dedent('''\
    import functools
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu


    def plain_helper(x):
        return x + 1


    def launcher(x):
        return pl.pallas_call(kernel, out_shape=x)(x)


    def uses_launcher():
        return launcher(1)


    @functools.partial(
        plgpu.kernel, out_shape=None)
    def decorated(o_ref):
        pass


    def run_decorated():
        return decorated()


    # pallas-lsp: entry
    def marked(scale=2):
        return plain_helper(scale)


    def main():
        pass


    def test_it():
        pass


    def orphan_launcher(y):
        return pl.pallas_call(kernel, out_shape=y)(y)
    ''')


def test_capabilities_advertise_the_commands_and_lenses(tmp_path):
    s, result = make_server(tmp_path)
    try:
        caps = result["capabilities"]
        assert {"pallas.run", "pallas.doctor"} <= set(caps["executeCommandProvider"]["commands"])
        assert "codeLensProvider" in caps
    finally:
        s.kill()


def test_code_lenses_above_entries_and_launchers(tmp_path):
    s, _ = make_server(tmp_path)
    try:
        uri = (tmp_path / "lenses.py").as_uri()
        open_doc(s, uri, LENS_SOURCE)
        lenses = s.request("textDocument/codeLens", {"textDocument": {"uri": uri}})["result"]
        by_line = {}
        for lens in lenses:
            line = lens["range"]["start"]["line"]
            cmd = lens["command"]
            assert cmd["command"] == "pallas.run"
            (arg,) = cmd["arguments"]
            assert arg["uri"] == uri
            # Where the probe found no GPU the compiled lenses say "(needs a
            # GPU)" (issue 35; test/editors/vscode-jsonrpc-decisions.test.mjs).
            title = cmd["title"].replace(" (needs a GPU)", "")
            by_line.setdefault(line, []).append((title, arg["entry"], arg["mode"]))
        lines = LENS_SOURCE.splitlines()
        named = {lines[ln].split("def ")[1].split("(")[0]: v for ln, v in by_line.items()}
        # Runnable: a no-arg launcher, the marked one, main, test_*, the decorated launch.
        # plain_helper and orphan_launcher (needs arguments, no entry calls it) get none.
        assert set(named) == {"launcher", "uses_launcher", "decorated", "run_decorated", "marked",
                              "main", "test_it"}
        assert named["main"] == [("Run on GPU", "main", "compiled"),
                                 ("Run interpreted", "main", "interpret"),
                                 ("Compare", "main", "compare")]
        # A launcher that needs arguments runs through the entry that calls it.
        assert [e for _, e, _ in named["launcher"]] == ["uses_launcher"] * 3
        assert all("via uses_launcher" in t for t, _, _ in named["launcher"])
        # The lens sits on the def line (not the decorator).
        assert [e for _, e, _ in named["decorated"]] == ["run_decorated"] * 3
    finally:
        s.kill()


# ------------------------------------------------------------------- runs ---

@needs_jax
def test_interpret_run_reports_progress_message_and_result(tmp_path, kernel_file):
    s, _ = make_server(tmp_path)
    try:
        uri = kernel_file.as_uri()
        open_doc(s, uri, KERNEL)
        resp = s.response(run_cmd(s, uri, "main", "interpret"), timeout=180)
        result = resp["result"]
        assert result["status"] == "succeeded", result
        assert result["mode"] == "interpret"
        (mode,) = result["modes"]
        assert mode["ok"] and mode["outputs"][0]["shape"] == [8, 128]
        # 0..1023 + 2 per element.
        assert mode["outputs"][0]["sum"] == pytest.approx(sum(range(1024)) + 2 * 1024)
        msg = s.wait_for(lambda m: m.get("method") == "window/showMessage")["params"]
        assert msg["type"] == 3 and "main (interpret): succeeded" in msg["message"]
        assert "float32[8,128]" in msg["message"] and result["summary"] == msg["message"]
        create = s.wait_for(lambda m: m.get("method") == "window/workDoneProgress/create")
        values = progress_values(s, create["params"]["token"])
        kinds = [v["kind"] for v in values]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds, kinds
        assert values[0]["cancellable"] is True
    finally:
        s.kill()


@needs_jax
def test_exception_frames_become_diagnostics_until_the_next_edit(tmp_path, kernel_file):
    s, _ = make_server(tmp_path)
    try:
        uri = kernel_file.as_uri()
        open_doc(s, uri, KERNEL)
        result = s.response(run_cmd(s, uri, "failing", "interpret"), timeout=180)["result"]
        assert result["status"] == "failed", result

        def run_diags(m):
            return (m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == uri
                    and any(d.get("source") == "pallas-lsp run" for d in m["params"]["diagnostics"]))
        diags = [d for d in s.wait_for(run_diags, timeout=30)["params"]["diagnostics"]
                 if d["source"] == "pallas-lsp run"]
        inner = [d for d in diags if d["severity"] == 1]
        assert len(inner) == 1 and "ValueError: bad block shape 3" in inner[0]["message"]
        assert inner[0]["range"]["start"]["line"] == line_of(KERNEL, 'raise ValueError')
        outer = [d["range"]["start"]["line"] for d in diags if d["severity"] == 3]
        assert line_of(KERNEL, "return helper_that_fails(3)") in outer
        err = s.wait_for(lambda m: m.get("method") == "window/showMessage")["params"]
        assert err["type"] == 1 and "ValueError" in err["message"]
        # An edit clears them.
        seen = len(s.seen)
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": KERNEL + "\n"}]})
        after = s.first_after(seen, lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri, timeout=30)
        assert not any(d.get("source") == "pallas-lsp run" for d in after["params"]["diagnostics"])
    finally:
        s.kill()


@needs_jax
@pytest.mark.parametrize("how", ["cancelRequest", "progressCancel"])
def test_cancel_kills_the_process_group(tmp_path, kernel_file, how):
    pidfile = tmp_path / "pid"
    s, _ = make_server(tmp_path, extra_env={"PALLAS_TEST_PIDFILE": str(pidfile)})
    try:
        uri = kernel_file.as_uri()
        open_doc(s, uri, KERNEL)
        rid = run_cmd(s, uri, "hang", "interpret")
        deadline = time.monotonic() + 120
        while not (pidfile.exists() and pidfile.read_text()):
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.1)
        pid = int(pidfile.read_text())
        assert pid_alive(pid)
        if how == "cancelRequest":
            s.notify("$/cancelRequest", {"id": rid})
        else:
            token = s.wait_for(lambda m: m.get("method") == "window/workDoneProgress/create")
            s.notify("window/workDoneProgress/cancel", {"token": token["params"]["token"]})
        resp = s.response(rid, timeout=30)
        if how == "cancelRequest":
            assert resp["error"]["code"] == -32800, resp
        else:
            assert resp["result"]["status"] == "cancelled", resp
        assert not pid_alive(pid), "the Python process survived the cancel"
        # The server is still up and takes another request.
        assert s.request("textDocument/codeLens", {"textDocument": {"uri": uri}})["result"]
    finally:
        s.kill()


@needs_jax
def test_timeout_from_initialization_options(tmp_path, kernel_file):
    pidfile = tmp_path / "pid"
    s, _ = make_server(tmp_path, init_options={"runner": {"timeoutSeconds": 10}},
                       extra_env={"PALLAS_TEST_PIDFILE": str(pidfile)})
    try:
        uri = kernel_file.as_uri()
        result = s.response(run_cmd(s, uri, "hang", "interpret"), timeout=120)["result"]
        assert result["status"] == "timed-out", result
        assert not pid_alive(int(pidfile.read_text()))
    finally:
        s.kill()


@needs_jax
def test_launch_template_and_python_from_configuration(tmp_path, kernel_file):
    # workspace/configuration (section pallas-lsp) carries the template.
    s = StdioServer("--debounce-ms", "5", extra_env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        s.auto_reply["window/workDoneProgress/create"] = None
        s.auto_reply["workspace/configuration"] = [{
            "python": PYTHON,
            "runner": {"launchTemplate": "env PALLAS_TEST_TEMPLATE=yes {python} {runner} {args}"}}]
        s.initialize({"workspace": {"configuration": True}})
        s.log_message("configuration received")
        result = s.response(run_cmd(s, kernel_file.as_uri(), "needs_template", "interpret"),
                            timeout=180)["result"]
        assert result["status"] == "succeeded", result
        assert result["command"][:2] == ["env", "PALLAS_TEST_TEMPLATE=yes"]
        assert result["command"][2] == PYTHON
    finally:
        s.kill()


@needs_jax
def test_compiled_without_a_gpu_fails_plainly(tmp_path, kernel_file):
    s, _ = make_server(tmp_path)
    try:
        result = s.response(run_cmd(s, kernel_file.as_uri(), "main", "compiled"),
                            timeout=180)["result"]
        assert result["status"] == "failed", result
        assert "GPU" in result["summary"], result["summary"]
    finally:
        s.kill()


@needs_jax
def test_compare_reports_both_sides(tmp_path, kernel_file):
    s, _ = make_server(tmp_path)
    try:
        result = s.response(run_cmd(s, kernel_file.as_uri(), "main", "compare"),
                            timeout=180)["result"]
        assert result["mode"] == "compare"
        sides = {m["mode"]: m for m in result["modes"]}
        assert set(sides) == {"compiled", "interpret"}, result
        # No GPU here: the compiled side says so, the interpreted side still runs.
        assert sides["interpret"]["ok"] and sides["interpret"]["outputs"][0]["shape"] == [8, 128]
        if not sides["compiled"]["ok"]:
            assert "[compiled]" in result["summary"] and "GPU" in result["summary"]
        assert "[interpret]" in result["summary"], result["summary"]
    finally:
        s.kill()


def test_untrusted_workspace_and_bad_arguments_are_refused(tmp_path, kernel_file):
    s, _ = make_server(tmp_path, init_options={"workspaceTrusted": False})
    try:
        resp = s.response(run_cmd(s, kernel_file.as_uri(), "main", "interpret"))
        assert "not trusted" in resp["error"]["message"]
        resp = s.request("workspace/executeCommand", {"command": "pallas.run", "arguments": [42]})
        assert resp["error"]["code"] == -32602
        resp = s.response(run_cmd(s, kernel_file.as_uri(), "main", "fast"))
        assert "unknown mode" in resp["error"]["message"]
    finally:
        s.kill()


def test_no_run_on_open_or_save(tmp_path, kernel_file):
    pidfile = tmp_path / "pid"
    s, _ = make_server(tmp_path, extra_env={"PALLAS_TEST_PIDFILE": str(pidfile)})
    try:
        uri = kernel_file.as_uri()
        open_doc(s, uri, KERNEL)
        s.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        s.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        time.sleep(1)
        assert not any(m.get("method") == "window/workDoneProgress/create" for m in s.seen)
        assert not any(m.get("method") == "window/showMessage" for m in s.seen)
    finally:
        s.kill()


# ------------------------------------------------- doctor, knowledge, GPU ---

def test_doctor_text_and_json(tmp_path):
    s, _ = make_server(tmp_path, extra_env={"PALLAS_LSP_LIBCUDA": str(tmp_path / "missing.so")})
    try:
        text = s.request("workspace/executeCommand",
                         {"command": "pallas.doctor", "arguments": []}, )["result"]
        assert isinstance(text, str) and "GPU (CUDA driver API)" in text
        assert "no GPU (off)" in text
        doc = s.request("workspace/executeCommand",
                        {"command": "pallas.doctor", "arguments": [{"format": "json"}]})["result"]
        assert doc["gpu"]["status"] == "no-driver" and doc["gpu_for_hardware_checks"] == ""
        # One shape for the probe: the command's JSON and `pallas-lsp doctor
        # --json` agree key for key (snake_case, as the rest of the report).
        cli = json.loads(subprocess.run(
            [BIN, "doctor", "--json", "--python", PYTHON or "python3"], capture_output=True, text=True,
            env={**os.environ, "PALLAS_LSP_LIBCUDA": str(tmp_path / "missing.so")}, timeout=120).stdout)
        assert doc["gpu"] == cli["gpu"], (doc["gpu"], cli["gpu"])
        assert set(doc["gpu"]) >= {"status", "driver_version", "devices", "mosaic_gpu_capable", "summary"}
        assert "launch_template" in doc and "launch_template" in cli
    finally:
        s.kill()


def test_knowledge_falls_back_to_the_bundled_table_with_a_reason(tmp_path):
    s, _ = make_server(tmp_path, init_options={"python": str(tmp_path / "no-such-python")})
    try:
        msg = s.log_message("JAX knowledge:", timeout=60)["params"]["message"]
        assert "bundled table used because" in msg and "no-such-python" in msg
        status = s.wait_for(lambda m: m.get("method") == "pallas/status")["params"]
        assert status["python"].endswith("no-such-python")
    finally:
        s.kill()


def test_without_a_configured_python_the_bundled_table_is_used(tmp_path):
    s, _ = make_server(tmp_path)
    try:
        msg = s.log_message("JAX knowledge:", timeout=60)["params"]["message"]
        assert "no JAX found in the environment" in msg, msg
    finally:
        s.kill()


@needs_jax
def test_knowledge_of_the_users_jax_is_extracted_and_cached(tmp_path):
    # The real cache (~/.cache/pallas-lsp or $XDG_CACHE_HOME): the extraction
    # imports JAX, slow the first time, a cache hit afterwards.
    # An interpreter outside any environment layout (a wrapper): its JAX
    # cannot be read from disk, so the trusted workspace's named interpreter
    # is asked (the import-based extraction).
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    wrapper = tmp_path / "wrapped" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{PYTHON}" "$@"\n')
    wrapper.chmod(0o755)
    s, _ = make_server(tmp_path, init_options={"python": str(wrapper)},
                       extra_env={"XDG_CACHE_HOME": cache, "VIRTUAL_ENV": "", "CONDA_PREFIX": ""})
    try:
        msg = s.log_message("JAX knowledge:", timeout=300)["params"]["message"]
        jax_version = json.loads(os.popen(
            f"{PYTHON} -c 'import json, jax; print(json.dumps(jax.__version__))'").read())
        table = pathlib.Path(cache) / "pallas-lsp" / f"knowledge-{jax_version}.json"
        assert f"JAX {jax_version}, " in msg and f"({table}; python {wrapper})" in msg, msg
        assert f"import-based ({wrapper})" in msg or "(import-based" in msg, msg
        assert "bundled table used" not in msg and table.exists()
        status = s.wait_for(lambda m: m.get("method") == "pallas/status")["params"]
        assert status["jaxVersion"] == jax_version and status["knowledge"] == str(table)
        # A different interpreter in didChangeConfiguration: loaded again.
        s.notify("workspace/didChangeConfiguration",
                 {"settings": {"pallasLsp": {"python": str(tmp_path / "other-python")}}})
        msg = s.wait_for(lambda m: m.get("method") == "window/logMessage"
                         and "other-python" in m["params"]["message"], timeout=60)
        assert "bundled table used because" in msg["params"]["message"]
    finally:
        s.kill()


@needs_jax
def test_the_workspace_virtual_environment_is_detected(tmp_path):
    """No python configured: the workspace's .venv is the project's
    interpreter, for the knowledge of its JAX and for runs."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    workspace = tmp_path / "proj"
    workspace.mkdir()
    # The project's .venv: the test's own virtual environment (a link to its
    # folder, so the interpreter finds its pyvenv.cfg and site-packages).
    (workspace / ".venv").symlink_to(pathlib.Path(PYTHON).parent.parent)
    venv_python = workspace / ".venv" / "bin" / "python"
    assert venv_python.exists()
    s, _ = make_server(tmp_path, extra_env={"XDG_CACHE_HOME": cache, "PALLAS_LSP_PYTHON": ""},
                       init_params={"rootUri": workspace.as_uri()})
    try:
        msg = s.log_message("JAX knowledge:", timeout=300)["params"]["message"]
        assert f"python {venv_python}, the workspace's virtual environment)" in msg, msg
        # Found by its layout: the bundled table of its JAX, nothing started.
        assert "bundled table for JAX" in msg, msg
        assert "bundled table used" not in msg, msg
        status = s.wait_for(lambda m: m.get("method") == "pallas/status")["params"]
        assert status["python"] == str(venv_python)
        doctor = s.request("workspace/executeCommand", {
            "command": "pallas.doctor", "arguments": [{"format": "json"}]})["result"]
        assert doctor["python"]["interpreter"] == str(venv_python)
    finally:
        s.kill()


def fake_libcuda():
    for cand in [os.environ.get("PALLAS_LSP_FAKE_LIBCUDA", ""),
                 str(pathlib.Path(BIN).resolve().parents[1] / "test" / "gpu" / "libfakecuda.so")]:
        if cand and os.path.exists(cand):
            return cand
    pytest.fail("the fake CUDA driver (target pallas_fake_libcuda) is not built next to "
                + BIN + "; set PALLAS_LSP_FAKE_LIBCUDA")


TCGEN05 = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu


    def kernel(a_ref, b_ref, o_ref):
      def scope(acc_ref):
        plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
        return acc_ref[...]

      o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))


    def run(a, b):
      return plgpu.kernel(kernel, out_shape=a)(a, b)
    ''')


@pytest.mark.parametrize("device,expect", [("NVIDIA H100@9.0@80", True),
                                           ("NVIDIA B200@10.0@180", False)])
def test_pls003_from_the_device_probe(tmp_path, device, expect):
    s, _ = make_server(tmp_path, extra_env={"PALLAS_LSP_LIBCUDA": fake_libcuda(),
                                            "FAKE_CUDA_DEVICES": device},
                       init_options={"python": str(tmp_path / "no-python")})
    try:
        s.log_message("GPU for hardware checks", timeout=30)
        uri = (tmp_path / "tc.py").as_uri()
        open_doc(s, uri, TCGEN05)
        # The probe's result re-analyses open documents; wait for a publish
        # made after the knowledge (the last environment fact) is in.
        s.log_message("JAX knowledge:", timeout=60)
        seen = len(s.seen)
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": TCGEN05 + "\n"}]})
        pub = s.first_after(seen, lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri, timeout=30)
        codes = [d.get("code") for d in pub["params"]["diagnostics"]]
        pls003 = [d for d in pub["params"]["diagnostics"] if d.get("code") == "PLS003"]
        if expect:
            assert len(pls003) == 1, codes
            assert pls003[0]["severity"] == 2 and "Blackwell" in pls003[0]["message"]
            assert pls003[0]["range"]["start"]["line"] == line_of(TCGEN05, "tcgen05_mma")
        else:
            assert not pls003, codes
    finally:
        s.kill()


def test_no_gpu_no_pls003(tmp_path):
    s, _ = make_server(tmp_path, extra_env={"PALLAS_LSP_LIBCUDA": str(tmp_path / "none.so")},
                       init_options={"python": str(tmp_path / "no-python")})
    try:
        msg = s.log_message("GPU for hardware checks", timeout=30)["params"]["message"]
        assert "none" in msg
        uri = (tmp_path / "tc.py").as_uri()
        open_doc(s, uri, TCGEN05)
        pub = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri, timeout=30)
        assert not [d for d in pub["params"]["diagnostics"] if d.get("code") == "PLS003"]
    finally:
        s.kill()


# ------------------------------------------------------------- `check` ---

def check(tmp_path, env, *args):
    import subprocess
    full = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), **env)
    return subprocess.run([BIN, "check", "--format", "json", *args], cwd=tmp_path, check=False,
                          env=full, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("device,expect", [("NVIDIA H100@9.0@80", True),
                                           ("NVIDIA B200@10.0@180", False)])
def test_check_probes_the_gpu_for_pls003(tmp_path, device, expect):
    (tmp_path / "tc.py").write_text(TCGEN05)
    out = check(tmp_path, {"PALLAS_LSP_LIBCUDA": fake_libcuda(), "FAKE_CUDA_DEVICES": device},
                "--no-config", "tc.py")
    assert "PLS003" in out.stdout if expect else "PLS003" not in out.stdout, out.stdout + out.stderr
    # Without a driver: no hardware findings either way.
    out = check(tmp_path, {"PALLAS_LSP_LIBCUDA": str(tmp_path / "none.so")}, "--no-config", "tc.py")
    assert "PLS003" not in out.stdout


def test_check_honours_the_configured_python(tmp_path):
    (tmp_path / "k.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\npython = "venv/bin/missing-python"\n')
    out = check(tmp_path, {}, "k.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bundled table is used" in out.stderr and "missing-python" in out.stderr, out.stderr
