"""The user's JAX found by the environment's layout and read without
executing anything (issue 18), and what may be executed when (issue 14:
items 3, 4, 9, 11 and the cache's fault injection), through the real binary:
`check`, `doctor` and `serve` over pipes.

The environments here hold JAX 0.11.2's real source (its wheel, downloaded
from PyPI once into build/test-downloads, never committed) and a
`bin/python` that only writes a marker file and exits 1: the marker
appearing means pallas-lsp executed the environment's interpreter."""
import json
import os
import pathlib
import shutil
import signal
import stat
import subprocess
import textwrap
import time
import zipfile

import pytest

from lspclient import BIN, ROOT, StdioServer

KNOWLEDGE = pathlib.Path(ROOT) / "analysis" / "knowledge"
PYTHON = os.environ.get("PALLAS_LSP_PYTHON") or str(pathlib.Path(ROOT) / ".venv" / "bin" / "python")

# A kernel whose finding names the JAX version and its default lowering
# semantics: literal CompilerParams() without lowering_semantics, and a
# primitive Mosaic GPU lowers under no semantics (pl.empty).
KERNEL = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu


    def kernel(x_ref, o_ref):
      o_ref[...] = x_ref[...] + pl.empty((128,), jnp.float32)


    def run():
      x = jnp.ones((128,), jnp.float32)
      return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=plgpu.CompilerParams())(x)
    ''')


@pytest.fixture(scope="module")
def jax_0112_wheel():
    cache = pathlib.Path(ROOT) / "build" / "test-downloads"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("jax-0.11.2-*.whl"))
    if not wheels:
        subprocess.run([PYTHON, "-m", "pip", "download", "--no-deps", "--python-version", "3.12",
                        "--only-binary=:all:", "jax==0.11.2", "-d", str(cache), "-q"], check=True)
        wheels = sorted(cache.glob("jax-0.11.2-*.whl"))
    return wheels[0]


def make_env(root, wheel, marker):
    """<root>/lib/python3.12/site-packages/jax from the wheel; bin/python
    writes `marker` and exits 1."""
    site = root / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    (root / "bin").mkdir()
    py = root / "bin" / "python"
    py.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nexit 1\n")
    py.chmod(0o755)
    return site


@pytest.fixture(scope="module")
def env0112(tmp_path_factory, jax_0112_wheel):
    base = tmp_path_factory.mktemp("env0112")
    marker = base / "MARKER"
    make_env(base / "env", jax_0112_wheel, marker)
    return base / "env", marker


@pytest.fixture
def workspace(tmp_path, env0112):
    env, marker = env0112
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".venv").symlink_to(env)
    (ws / "k.py").write_text(KERNEL)
    if marker.exists():
        marker.unlink()
    return ws, env, marker


def clean_env(tmp_path, **extra):
    """The binary's environment: a private cache, no activated environment."""
    env = dict(os.environ)
    env.update({"XDG_CACHE_HOME": str(tmp_path / "cache"), "VIRTUAL_ENV": "", "CONDA_PREFIX": ""})
    env.update({k: str(v) for k, v in extra.items()})
    return env


def knowledge_dir_without_0112(tmp_path):
    """A knowledge directory that ships no 0.11.2 table: a static read is needed."""
    d = tmp_path / "knowledge"
    d.mkdir()
    for name in ("jax-0.10.2.json", "extract_knowledge.py", "extract_knowledge_static.py"):
        shutil.copy(KNOWLEDGE / name, d / name)
    shutil.copytree(KNOWLEDGE / "pallas_jax_facts", d / "pallas_jax_facts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return d


def cli(args, cwd, env, timeout=300):
    return subprocess.run([BIN, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def serve(tmp_path, root, init_options=None, **extra):
    s = StdioServer("--debounce-ms", "5", extra_env=clean_env(tmp_path, **extra))
    s.auto_reply["window/workDoneProgress/create"] = None
    s.auto_reply["workspace/configuration"] = [None]
    params = {"rootUri": root.as_uri()}
    if init_options is not None:
        params["initializationOptions"] = init_options
    s.initialize({"window": {"workDoneProgress": True}}, **params)
    return s


def knowledge_log(s, timeout=120):
    return s.log_message("JAX knowledge:", timeout=timeout)["params"]["message"]


def diagnostics_of(s, uri, timeout=60):
    return s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri and m["params"]["diagnostics"],
                      timeout=timeout)["params"]["diagnostics"]


def open_doc(s, path):
    s.notify("textDocument/didOpen", {"textDocument": {
        "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}})


# ------------------------------------------------------- issue 18 -----------

def test_jax_0112_environment_uses_its_table_and_never_runs_its_python(tmp_path, workspace):
    ws, env, marker = workspace
    # check: the workspace's .venv is found by its layout.
    r = cli(["check", "k.py", "--format", "json"], ws, clean_env(tmp_path))
    assert r.returncode == 1, r.stderr
    message = json.loads(r.stdout)["findings"][0]["message"]
    assert "JAX 0.11.2" in message and "LoweringSemantics.Warpgroup" in message, message
    # ... also when the user names the environment's interpreter for it.
    r = cli(["check", "k.py", "--python", str(env / "bin" / "python")], ws, clean_env(tmp_path))
    assert r.returncode == 1 and "JAX 0.11.2" in r.stdout, r.stdout + r.stderr
    # doctor says which JAX and how its knowledge was obtained.
    r = cli(["doctor"], ws, clean_env(tmp_path))
    assert "Analysis knowledge: JAX 0.11.2, bundled table for JAX 0.11.2" in r.stdout, r.stdout
    assert "(workspace .venv)" in r.stdout
    doc = json.loads(cli(["doctor", "--json"], ws, clean_env(tmp_path)).stdout)
    assert doc["knowledge"]["jax_version"] == "0.11.2"
    assert doc["knowledge"]["how"].startswith("bundled table for JAX 0.11.2")
    assert doc["knowledge"]["source"].endswith("jax-0.11.2.json")
    # serve: initialize, then the diagnostics of an open file.
    s = serve(tmp_path, ws)
    try:
        log = knowledge_log(s)
        assert "JAX 0.11.2, bundled table for JAX 0.11.2" in log, log
        open_doc(s, ws / "k.py")
        diags = diagnostics_of(s, (ws / "k.py").as_uri())
        assert any("JAX 0.11.2" in d["message"] and "LoweringSemantics.Warpgroup" in d["message"]
                   for d in diags), diags
        s.shutdown_and_exit()
        s.wait()
    finally:
        s.kill()
    assert not marker.exists(), marker.read_text()


# A pl.pallas_call without compiler params: JAX 0.10.2 compiles it with
# Mosaic GPU on a GPU (jax_pallas_use_mosaic_gpu defaults to true), where
# jax.nn.relu fails resource estimation; JAX 0.11.2 has no such flag and
# always picks Triton there (pallas_call.py gpu_lowering), which is not
# Mosaic GPU's compiled path to judge.
TRITON_BY_DEFAULT = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl


    def kernel(x_ref, o_ref):
      o_ref[...] = jax.nn.relu(x_ref[...])


    def run():
      x = jnp.ones((128,), jnp.float32)
      return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    ''')


def test_a_pallas_call_without_params_is_triton_on_jax_0112_and_mosaic_gpu_on_0102(
        tmp_path, workspace):
    ws, env, marker = workspace
    (ws / "t.py").write_text(TRITON_BY_DEFAULT)
    tables = {v: json.loads((KNOWLEDGE / f"jax-{v}.json").read_text()) for v in ("0.10.2", "0.11.2")}
    assert tables["0.10.2"]["mosaicGpuDefaults"]["pallasCallWithoutParams"] == {
        "flag": "jax_pallas_use_mosaic_gpu", "env": "JAX_PALLAS_USE_MOSAIC_GPU", "default": True,
        "otherwise": "triton"}
    assert tables["0.11.2"]["mosaicGpuDefaults"]["pallasCallWithoutParams"] == {
        "flag": None, "backend": "triton"}
    r = cli(["check", "t.py"], ws, clean_env(tmp_path))
    assert r.returncode == 0 and "All checks passed!" in r.stdout, r.stdout + r.stderr
    # Without the workspace's 0.11.2 environment: the bundled 0.10.2 table.
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "t.py").write_text(TRITON_BY_DEFAULT)
    r = cli(["check", "t.py", "--no-config"], alone, clean_env(tmp_path))
    assert r.returncode == 1 and "JAX 0.10.2" in r.stdout and "custom_jvp_call" in r.stdout, \
        r.stdout + r.stderr
    # ... unless the process's environment turns the flag off, as JAX reads it.
    r = cli(["check", "t.py", "--no-config"], alone,
            clean_env(tmp_path, JAX_PALLAS_USE_MOSAIC_GPU="0"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert not marker.exists()


def test_without_a_table_for_the_version_the_source_is_read_statically_and_cached(
        tmp_path, workspace):
    ws, env, marker = workspace
    kdir = knowledge_dir_without_0112(tmp_path)
    env_vars = clean_env(tmp_path, PALLAS_LSP_KNOWLEDGE_DIR=kdir)
    r = cli(["doctor"], ws, env_vars)
    site = env / "lib" / "python3.12" / "site-packages"
    assert f"JAX 0.11.2, static read of {ws / '.venv' / 'lib' / 'python3.12' / 'site-packages'}" \
        in r.stdout, r.stdout
    cache = tmp_path / "cache" / "pallas-lsp"
    table = cache / "knowledge-static-0.11.2.json"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(table.stat().st_mode) == 0o600
    assert table.read_text() == (KNOWLEDGE / "jax-0.11.2.json").read_text()
    r = cli(["doctor"], ws, env_vars)
    assert f"JAX 0.11.2, cache {table}" in r.stdout, r.stdout
    r = cli(["check", "k.py"], ws, env_vars)
    assert r.returncode == 1 and "JAX 0.11.2" in r.stdout and not r.stderr, r.stdout + r.stderr
    assert site.exists() and not marker.exists()


# ------------------------------------------------ issue 14, item 3 ----------

def test_untrusted_workspace_executes_nothing(tmp_path, workspace):
    ws, env, marker = workspace
    python = str(env / "bin" / "python")
    # Static reading fails here (the pinned interpreter is replaced by one
    # that fails): the import-based fallback would run the workspace's python.
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path),
             "PALLAS_LSP_KNOWLEDGE_PYTHON": "/bin/false", "PALLAS_LSP_PYTHON": ""}
    s = serve(tmp_path, ws, {"workspaceTrusted": False, "python": python}, **extra)
    try:
        log = knowledge_log(s)
        assert "bundled table used because" in log and "may not be executed" in log, log
        resp = s.request("workspace/executeCommand", {"command": "pallas.run", "arguments": [
            {"uri": (ws / "k.py").as_uri(), "entry": "run", "mode": "interpret"}]})
        assert "not trusted" in resp["error"]["message"], resp
        doctor = s.request("workspace/executeCommand",
                           {"command": "pallas.doctor", "arguments": [{"format": "json"}]})["result"]
        assert "not trusted" in doctor["python"]["environment"]["error"], doctor
        assert doctor["knowledge"]["workspaceTrusted"] is False
    finally:
        s.kill()
    assert not marker.exists(), marker.read_text()
    # The same workspace, trusted: the import-based fallback runs the python
    # the user named (so the test above can fail).
    s = serve(tmp_path, ws, {"workspaceTrusted": True, "python": python}, **extra)
    try:
        knowledge_log(s)
    finally:
        s.kill()
    assert marker.exists()


def test_check_executes_only_a_named_interpreter_and_isolated_ignores_the_config(tmp_path,
                                                                                 workspace):
    # Only --python, or the config's with --trust-config-python, runs.
    ws, env, marker = workspace
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path),
             "PALLAS_LSP_KNOWLEDGE_PYTHON": "/bin/false"}
    # Static reading fails; nothing is named: the .venv is not executed.
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1 and not marker.exists(), r.stderr
    assert "bundled table is used" in r.stderr
    # The config names it, --isolated ignores the config: still nothing runs.
    (ws / "pyproject.toml").write_text('[tool.pallas-lsp]\npython = ".venv/bin/python"\n')
    r = cli(["check", "k.py", "--isolated"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1 and not marker.exists(), r.stderr
    # Named by the repository's config (issue 34): its environment is read,
    # the program is not executed, and check says so.
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1 and not marker.exists(), r.stderr
    assert "was read, not executed" in r.stderr and "--trust-config-python" in r.stderr, r.stderr
    # The user says so on the command line: executed (import-based, as
    # static reading failed).
    r = cli(["check", "k.py", "--trust-config-python"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1 and marker.exists(), r.stderr


# ------------------------------------------------ issue 14, item 11 ---------

def test_a_run_without_a_configured_python_uses_the_workspace_environment(tmp_path, workspace):
    ws, env, marker = workspace
    s = serve(tmp_path, ws, PALLAS_LSP_PYTHON="")
    try:
        knowledge_log(s)
        assert not marker.exists()
        s.request("workspace/executeCommand", {"command": "pallas.run", "arguments": [
            {"uri": (ws / "k.py").as_uri(), "entry": "run", "mode": "interpret"}]}, )
    finally:
        s.kill()
    # The run started the workspace's interpreter, not python3 from PATH.
    assert marker.exists()


# ------------------------------------------------ issue 14, item 4 ----------

def test_a_wrongly_typed_cached_table_is_discarded(tmp_path, workspace):
    ws, env, marker = workspace
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path)}
    cache = tmp_path / "cache" / "pallas-lsp"
    cache.mkdir(parents=True, mode=0o700)
    bad = json.loads((KNOWLEDGE / "jax-0.11.2.json").read_text())
    bad["apis"]["plgpu.kernel"]["returnsBeforeBind"] = "sometimes"  # a string, not a bool
    bad["schemaVersion"] = "1"
    (cache / "knowledge-static-0.11.2.json").write_text(json.dumps(bad))
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1, r.stderr
    assert "cached table discarded" in r.stderr and "wrongly typed" in r.stderr, r.stderr
    assert "JAX 0.11.2" in r.stdout
    assert json.loads((cache / "knowledge-static-0.11.2.json").read_text())["schemaVersion"] == 1
    # The server: the same bad cache, a clear log line, and it keeps serving.
    (cache / "knowledge-static-0.11.2.json").write_text(json.dumps(bad))
    s = serve(tmp_path, ws, **extra)
    try:
        log = knowledge_log(s)
        assert "cached table discarded" in log and "JAX 0.11.2, static read" in log, log
        s.shutdown_and_exit()
        assert s.wait() == 0
    finally:
        s.kill()


# ------------------------------------------------ issue 14, item 9 ----------

def test_the_knowledge_probe_dies_with_the_server(tmp_path):
    slow = tmp_path / "slow"
    slow.mkdir()
    pidfile = tmp_path / "probe.pid"
    python = slow / "python"
    python.write_text(f"#!/bin/sh\necho $$ > '{pidfile}'\nexec sleep 300\n")
    python.chmod(0o755)
    s = serve(tmp_path, tmp_path, {"python": str(python)})
    try:
        deadline = time.monotonic() + 30
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert time.monotonic() < deadline, "the probe never started"
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        s.proc.send_signal(signal.SIGKILL)
        s.proc.wait()
        deadline = time.monotonic() + 10
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            with open(f"/proc/{pid}/stat") as f:  # a zombie is dead, only unreaped
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
            assert time.monotonic() < deadline, f"probe {pid} outlived the server"
            time.sleep(0.05)
    finally:
        s.kill()
    leftovers = [p.name for p in (tmp_path / "cache" / "pallas-lsp").iterdir()]
    assert not [n for n in leftovers if n.startswith("jax-version") or ".tmp" in n], leftovers


def test_the_cache_is_private_cleaned_and_never_written_through_a_link(tmp_path, workspace):
    ws, env, marker = workspace
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path)}
    cache = tmp_path / "cache" / "pallas-lsp"
    cache.mkdir(parents=True)
    cache.chmod(0o755)
    # What older versions and crashed writers left.
    for name in ("jax-version.4194000", "knowledge-0.10.2.json.tmp4194001",
                 "knowledge-static-0.11.2.json.tmp.4194002.abc"):
        (cache / name).write_text("{")
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (cache / "knowledge-static-0.11.2.json").symlink_to(victim)
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1, r.stderr
    assert victim.read_text() == "keep me"
    table = cache / "knowledge-static-0.11.2.json"
    assert not table.is_symlink() and json.loads(table.read_text())["jax_version"] == "0.11.2"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert sorted(p.name for p in cache.iterdir()) == ["knowledge-static-0.11.2.json"]


# ------------------------------------------------ fault injection -----------

def test_killed_while_extracting_leaves_no_partial_cache(tmp_path, workspace):
    ws, env, marker = workspace
    pidfile = tmp_path / "extractor.pid"
    slow = tmp_path / "slow-python"
    real = subprocess.run([PYTHON, "-c", "import sys; print(sys.executable)"], capture_output=True,
                          text=True, check=True).stdout.strip()
    slow.write_text(f"#!/bin/sh\necho $$ > '{pidfile}'\nsleep 2\nexec '{real}' \"$@\"\n")
    slow.chmod(0o755)
    cache = tmp_path / "cache" / "pallas-lsp"
    cache.mkdir(parents=True, mode=0o700)
    (cache / "knowledge-static-9.9.9.json").write_text("earlier table")
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path),
             "PALLAS_LSP_KNOWLEDGE_PYTHON": slow}
    p = subprocess.Popen([BIN, "check", "k.py"], cwd=ws, env=clean_env(tmp_path, **extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not pidfile.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    p.kill()
    p.wait()
    time.sleep(0.5)
    assert sorted(x.name for x in cache.iterdir()) == ["knowledge-static-9.9.9.json"]
    assert (cache / "knowledge-static-9.9.9.json").read_text() == "earlier table"
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra))
    assert r.returncode == 1 and "JAX 0.11.2" in r.stdout, r.stderr
    assert (cache / "knowledge-static-0.11.2.json").exists()


def test_a_full_disk_costs_only_the_caching(tmp_path, workspace):
    ws, env, marker = workspace
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path)}
    cache = tmp_path / "cache" / "pallas-lsp"
    cache.mkdir(parents=True, mode=0o700)
    (cache / "knowledge-static-9.9.9.json").write_text("earlier table")
    # A 16 KiB file size limit: the 0.11.2 table (~80 KB) cannot be written.
    r = subprocess.run(["bash", "-c", 'ulimit -f 16 && exec "$0" check k.py', BIN], cwd=ws,
                       env=clean_env(tmp_path, **extra), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "could not be stored" in r.stderr and "File too large" in r.stderr, r.stderr
    assert sorted(x.name for x in cache.iterdir()) == ["knowledge-static-9.9.9.json"]
    assert (cache / "knowledge-static-9.9.9.json").read_text() == "earlier table"


def test_an_unreadable_cache_entry_is_replaced_or_reported(tmp_path, workspace):
    ws, env, marker = workspace
    extra = {"PALLAS_LSP_KNOWLEDGE_DIR": knowledge_dir_without_0112(tmp_path)}
    cache = tmp_path / "cache" / "pallas-lsp"
    cache.mkdir(parents=True, mode=0o700)
    table = cache / "knowledge-static-0.11.2.json"
    os.mkfifo(table)  # reading it would block forever
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra), timeout=120)
    assert r.returncode == 1 and "not a regular file" in r.stderr, r.stderr
    assert table.is_file() and json.loads(table.read_text())["jax_version"] == "0.11.2"
    # A directory in its place (with something in it): reported, kept, and
    # the bundled table is used.
    table.unlink()
    table.mkdir()
    (table / "keep").write_text("x")
    r = cli(["check", "k.py"], ws, clean_env(tmp_path, **extra), timeout=120)
    assert r.returncode == 1, r.stderr
    assert "bundled table is used" in r.stderr and "could not be stored" in r.stderr, r.stderr
    assert (table / "keep").read_text() == "x"
