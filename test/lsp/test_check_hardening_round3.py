"""`pallas-lsp check`, `--fix` and `run` against hostile repositories and
environments (issue 34, round 3), through the real binary: each case once
crashed, hung, lost every other file's findings or damaged a file."""

import json
import os
import resource
import signal
import subprocess
from pathlib import Path

import pytest

from lspclient import BIN
from test_hardening import KERNEL, REGION_LINE


def check(*args, cwd=None, timeout=120, env=None, preexec_fn=None):
    return subprocess.run([BIN, "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env, preexec_fn=preexec_fn)


def findings(r):
    return [(f["path"].rsplit("/", 1)[-1], f["code"], f["range"]["start"]["line"])
            for f in json.loads(r.stdout)["findings"]]


# ---- 2. pyproject.toml nested 100,000 deep ------------------------------------------

@pytest.mark.parametrize("toml", ["a." * 100_000 + "a = 1\n", "[" + "a." * 100_000 + "a]\n",
                                  "[tool.x]\nv = " + "[" * 300 + "]" * 300 + "\n"],
                         ids=["dotted-key", "table-header", "arrays"])
def test_a_deep_pyproject_is_a_configuration_error_not_a_crash(tmp_path, toml):
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "k.py").write_text(KERNEL)
    r = check(".", cwd=tmp_path, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    line = toml.count("\n", 0, toml.index("[[[") if "[[[" in toml else 0) + 1
    assert "configuration error" in r.stderr and f"pyproject.toml:{line}:" in r.stderr, r.stderr
    assert "nested deeper than 64 levels" in r.stderr, r.stderr


def test_a_pyproject_that_is_a_fifo_or_huge_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pyproject.toml")
    (tmp_path / "k.py").write_text(KERNEL)
    r = check(".", cwd=tmp_path, timeout=60)
    # Discovery skips what is not a regular file (no [tool.pallas-lsp] there).
    assert r.returncode == 1, r.stderr
    r = check(".", "--config", "pyproject.toml", cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and "not a regular file (a FIFO)" in r.stderr, r.stderr
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.pallas-lsp]\n" + "# pad\n" * 300_000)
    r = check(".", cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and "larger than 1 MiB" in r.stderr, r.stderr


# ---- 3. --fix: hard links, file size limits, no temporaries left ----------------------

def fix(path, cwd, preexec_fn=None):
    return check("--fix", "--unsafe-fixes", "--select", "PLS001", str(path), cwd=cwd,
                 preexec_fn=preexec_fn)


def test_fix_under_a_file_size_limit_keeps_the_file_and_leaves_nothing(tmp_path):
    # SIGXFSZ killed check halfway, leaving a partial .k.py.pallas-fix-XXXXXX.
    k = tmp_path / "k.py"
    k.write_text(KERNEL + "# " + "x" * 6000 + "\n")
    before = k.read_bytes()

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    r = fix(k, tmp_path, preexec_fn=small_files)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "k.py: cannot write: File too large" in r.stderr, r.stderr
    assert k.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_fix_leaves_a_hard_linked_file_alone_and_says_so(tmp_path):
    # It was rewritten in place: under `ulimit -f` (or a kill) neither text.
    a = tmp_path / "k.py"
    a.write_text(KERNEL)
    b = tmp_path / "other_name.py"
    os.link(a, b)
    r = fix(a, tmp_path)
    assert r.returncode == 1, r  # the finding is still there
    assert "k.py: has 2 hard links; its fixes were not applied" in r.stderr, r.stderr
    assert a.read_text() == b.read_text() == KERNEL
    assert a.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py", "other_name.py"]


def test_fix_is_whole_or_nothing_when_killed(tmp_path):
    # Killed at any moment, the file holds the old text or the new one, and
    # no temporary file is left (SIGTERM removes it; the new text is
    # written unnamed, so SIGKILL leaves nothing either).
    k = tmp_path / "k.py"
    original = KERNEL + "# " + "x" * 3_000_000 + "\n"
    k.write_text(original)
    assert fix(k, tmp_path).returncode in (0, 1)
    fixed = k.read_text()
    assert fixed != original
    for delay in (0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            k.write_text(original)
            p = subprocess.Popen([BIN, "check", "--fix", "--unsafe-fixes", "--select", "PLS001",
                                  str(k)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            try:
                p.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                p.send_signal(sig)
                p.wait()
            assert k.read_text() in (original, fixed), "a half-written file"
            assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"], \
                sorted(p.name for p in tmp_path.iterdir())


# ---- 5. .gitignore that is a FIFO or /dev/zero ---------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_an_unreadable_gitignore_is_reported_and_the_run_goes_on(tmp_path, kind):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "sub"
    sub.mkdir()
    if kind == "fifo":
        os.mkfifo(sub / ".gitignore")
    else:
        (sub / ".gitignore").symlink_to("/dev/zero")
    (sub / "k.py").write_text(KERNEL)
    r = check("--format", "json", ".", cwd=tmp_path, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert f"sub/.gitignore: skipped: not a regular file ({what}); its ignore rules were not " \
           "applied" in r.stderr, r.stderr
    assert ("k.py", "PLS001", REGION_LINE) in findings(r)


# ---- 6. exponential globs -------------------------------------------------------------

EVIL = "*a" * 14 + "*b"


@pytest.mark.parametrize("where", ["extend-exclude", "exclude", "gitignore", "per-file-ignores"])
def test_a_pathological_glob_is_matched_in_linear_time(tmp_path, where):
    (tmp_path / ".git").mkdir()
    if where == "gitignore":
        (tmp_path / ".gitignore").write_text(EVIL + "\n")
    elif where == "per-file-ignores":
        (tmp_path / "pyproject.toml").write_text(
            '[tool.pallas-lsp]\nper-file-ignores = { "%s" = ["PLS002"] }\n' % EVIL)
    else:
        (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\n%s = ["%s"]\n' % (where, EVIL))
    # Sixty a's and no b: backtracking tried every way to place 14 stars.
    (tmp_path / ("a" * 60 + ".py")).write_text(KERNEL)
    r = check("--format", "json", ".", cwd=tmp_path, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr[-500:])
    assert [f[1:] for f in findings(r)] == [("PLS001", REGION_LINE)]


def test_a_pattern_that_matches_is_still_honoured(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pallas-lsp]\nextend-exclude = ["%s"]\n' % ("*a" * 14 + "*b.py"))
    (tmp_path / ("a" * 58 + "b.py")).write_text(KERNEL)
    (tmp_path / "k.py").write_text(KERNEL)
    r = check("--format", "json", ".", cwd=tmp_path, timeout=60)
    assert [f[0] for f in findings(r)] == ["k.py"], r.stdout


# ---- 7. a malformed notebook ------------------------------------------------------------

def test_a_malformed_notebook_does_not_abort_the_run(tmp_path):
    # "cell_type": null aborted the whole run ("internal error:
    # [json.exception.type_error.302]"), without naming the notebook.
    cells = [{"cell_type": None, "source": "x = 1\n"},
             {"cell_type": 7, "source": ["y = 2\n"]},
             {"cell_type": "code", "source": 12},
             {"cell_type": "code", "source": ["import jax\n", None, "z = 3\n"]},
             "not a cell"]
    nb = {"cells": cells, "metadata": {"kernelspec": {"language": None}}, "nbformat": 4}
    (tmp_path / "bad.ipynb").write_text(json.dumps(nb))
    (tmp_path / "deep.ipynb").write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (tmp_path / "k.py").write_text(KERNEL)
    r = check("--format", "json", ".", cwd=tmp_path, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert ("k.py", "PLS001", REGION_LINE) in findings(r)
    assert "deep.ipynb: not checked: JSON nested deeper than 256 levels" in r.stderr, r.stderr
    assert "internal error" not in r.stderr


# ---- 8. a file over the analysis budget ---------------------------------------------------

def test_a_file_over_the_budget_is_reported_with_its_own_code(tmp_path):
    big = tmp_path / "gen.py"
    row = "    " + ", ".join("%d.5" % i for i in range(200)) + ",\n"
    big.write_text(KERNEL + "\nTABLE = (\n" + row * 5000 + ")\n")  # 6.2 MiB
    (tmp_path / "k.py").write_text(KERNEL)
    r = check("--format", "json", ".", cwd=tmp_path, timeout=120)
    assert r.returncode == 1, r.stderr
    got = findings(r)
    assert ("gen.py", "PLS010", 0) in got and ("k.py", "PLS001", REGION_LINE) in got, got
    assert not any(f[0] == "gen.py" and f[1] != "PLS010" for f in got), got
    msg = next(f["message"] for f in json.loads(r.stdout)["findings"] if f["code"] == "PLS010")
    assert msg.startswith("skipped: too large to analyse (6.") and "MiB > 4 MiB limit)" in msg, msg
    r = check(".", cwd=tmp_path, timeout=120)
    assert "gen.py:1:1: warning[PLS010] skipped: too large to analyse" in r.stdout, r.stdout
    # Ignored like any code; a raised budget analyses it.
    r = check("--format", "json", "--ignore", "PLS010", ".", cwd=tmp_path)
    assert not any(f[1] == "PLS010" for f in findings(r))
    env = dict(os.environ, PALLAS_LSP_ANALYSIS_MAX_BYTES=str(8 << 20),
               PALLAS_LSP_ANALYSIS_MAX_TOKENS="5000000")
    r = check("--format", "json", "gen.py", cwd=tmp_path, env=env, timeout=300)
    assert [f[1:] for f in findings(r)] == [("PLS001", REGION_LINE)], r.stdout[-500:]


# ---- 13. numbers on the command line ------------------------------------------------------

@pytest.mark.parametrize("args,needs", [
    (["--timeout", "1e10"], "--timeout needs a number of seconds"),
    (["--timeout", "0.0001"], "--timeout needs a number of seconds"),
    (["--timeout", "nan"], "--timeout needs a number of seconds"),
    (["--timeout", "inf"], "--timeout needs a number of seconds"),
    (["--timeout", "-1"], "--timeout needs a number of seconds"),
    (["--timeout", "1e400"], "--timeout needs a number of seconds"),
    (["--timeout", "0x10"], "--timeout needs a number of seconds"),
    (["--timeout", " 5"], "--timeout needs a number of seconds"),
    (["--runs", "1e10"], "--runs needs a whole number from 1 to 100000"),
    (["--runs", "2.5"], "--runs needs a whole number"),
    (["--runs", "0"], "--runs needs a whole number"),
    (["--runs", "99999999999999999999999"], "--runs needs a whole number"),
    (["--memory-limit", "1e30"], "--memory-limit needs a whole number"),
])
def test_run_refuses_numbers_it_cannot_honour(tmp_path, args, needs):
    (tmp_path / "k.py").write_text(KERNEL)
    r = subprocess.run([BIN, "run", str(tmp_path / "k.py"), "--entry", "run",
                        "--python", "/bin/false", *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert needs in r.stderr, r.stderr


def test_serve_refuses_bad_numbers():
    for args, needs in [(["--debounce-ms", "1e3"], "--debounce-ms expects a whole number"),
                        (["--listen", "0", "--max-connections", "0"],
                         "--max-connections expects a whole number from 1 to 4096")]:
        r = subprocess.run([BIN, "serve", *args], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and needs in r.stderr, r


# ---- also seen: paths that are not UTF-8 -------------------------------------------------

def test_json_and_sarif_name_a_non_utf8_path_that_exists(tmp_path):
    name = b"k\xff\xfe-\xc3(.py"  # not UTF-8 (a Latin-1 name, a broken sequence)
    path = os.path.join(os.fsencode(tmp_path), name)
    with open(path, "w") as f:
        f.write(KERNEL)
    r = subprocess.run([BIN, "check", "--format", "json", "."], cwd=tmp_path,
                       capture_output=True, timeout=120)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)  # still JSON
    paths = {f["path"] for f in report["findings"]}
    assert len(paths) == 1
    got = os.fsencode(paths.pop())  # surrogateescape: the exact bytes
    assert os.path.exists(os.path.join(os.fsencode(tmp_path), got)), got
    assert got.endswith(name)
    r = subprocess.run([BIN, "check", "--format", "sarif", "."], cwd=tmp_path,
                       capture_output=True, timeout=120)
    sarif = json.loads(r.stdout)
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    from urllib.parse import unquote_to_bytes
    assert unquote_to_bytes(uri) == name, uri
