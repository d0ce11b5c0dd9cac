"""`pallas-lsp check` on Jupyter notebooks (.ipynb), with the real binary: a
folder walk picks them up, the code cells are analysed as one module (the
kernel in one cell, the interpret=True launch in another), and every output
says which cell and which line of it a finding is on (text: ruff's
`nb.ipynb:cell 3:9:3:`; json: `cell` and the cell's line). `--fix` never
writes a notebook."""
import json
import os
import subprocess
from pathlib import Path

import pytest

BIN = os.environ.get("PALLAS_LSP_BIN", "")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "interpret_inline.py"


def notebook(cells, language="python"):
    return {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": language}},
        "cells": [{"cell_type": kind, "metadata": {}, "source": source,
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, source in cells],
    }


def split_fixture():
    """The check fixture as a notebook: imports, the kernel (with a magic), markdown, the launch."""
    text = FIXTURE.read_text()
    lines = text.splitlines(keepends=True)
    first_def = next(i for i, l in enumerate(lines) if l.startswith("def "))
    launch_def = max(i for i, l in enumerate(lines) if l.startswith("def "))
    imports = lines[:first_def]
    kernel = ["%matplotlib inline\n"] + lines[first_def:launch_def]
    launch = lines[launch_def:]
    return [("code", imports), ("code", kernel), ("markdown", "# Launch\nunder interpret=True"), ("code", launch)]


def check(*args, cwd):
    assert BIN and os.path.exists(BIN), "PALLAS_LSP_BIN must name the built pallas-lsp"
    return subprocess.run([BIN, "check", "--no-config", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path):
    cells = split_fixture()
    (tmp_path / "kernels.ipynb").write_text(json.dumps(notebook(cells), indent=1))
    return tmp_path, cells


def expected_place(cells):
    """(1-based cell, 1-based line) of the line JAX blames, found by the fixture's own marker."""
    py = subprocess.run([BIN, "check", "--no-config", "--format", "json", str(FIXTURE)],
                        capture_output=True, text=True, timeout=120)
    finding = json.loads(py.stdout)["findings"][0]
    blamed = FIXTURE.read_text().splitlines()[finding["range"]["start"]["line"]]
    for n, (kind, source) in enumerate(cells, start=1):
        src = "".join(source) if isinstance(source, list) else source
        for i, line in enumerate(src.splitlines()):
            if kind == "code" and line == blamed:
                return n, i + 1, finding
    raise AssertionError(blamed)


def test_a_folder_walk_checks_notebooks_cell_by_cell(project):
    folder, cells = project
    cell, line, as_py = expected_place(cells)
    assert cell == 2, "the kernel's cell"
    out = check(".", cwd=folder)
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stdout.splitlines()[0]
    col = as_py["range"]["start"]["column"] + 1
    assert first.startswith(f"kernels.ipynb:cell {cell}:{line}:{col}: error[PLS001] "), out.stdout
    launch = "".join(cells[3][1]).splitlines()
    launch_line = next(i for i, l in enumerate(launch) if "pl.pallas_call" in l) + 1
    assert first.endswith(f"(launch at cell 4, line {launch_line})"), first

    js = check("--format", "json", ".", cwd=folder)
    findings = json.loads(js.stdout)["findings"]
    assert [f["code"] for f in findings] == [as_py["code"]], findings
    assert findings[0]["cell"] == cell and findings[0]["cellRange"]["start"]["line"] == line - 1, findings[0]
    assert findings[0]["path"].endswith("kernels.ipynb")


def test_fix_never_writes_a_notebook(project):
    folder, _ = project
    before = (folder / "kernels.ipynb").read_bytes()
    out = check("--fix", "--unsafe-fixes", ".", cwd=folder)
    assert out.returncode == 1, out.stdout + out.stderr
    assert (folder / "kernels.ipynb").read_bytes() == before
    assert "notebook" in out.stderr.lower(), out.stderr


def test_notebooks_that_are_not_python_or_not_notebooks(tmp_path):
    (tmp_path / "r.ipynb").write_text(json.dumps(notebook([("code", "x <- 1\n")], language="R")))
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "empty.ipynb").write_text(json.dumps(notebook([])))
    out = check(".", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All checks passed!" in out.stdout
    assert "broken.ipynb" in out.stderr, out.stderr
