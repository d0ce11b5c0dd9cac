"""workspace/didChangeWatchedFiles through the real binary: a file changed on
disk is read again into the project's index (Project::fileChanged) whether
or not the index knew it and wherever it lives, never becomes an open
document, and the open documents that import from it are analysed again; an
open document keeps the editor's text."""

from pathlib import Path

import pytest

from lspclient import StdioServer

HINT = 4

MAIN = """import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from helpers import copy_in


def kernel(x_gmem, o_gmem, x_smem, barrier):
  copy_in(x_gmem, x_smem, barrier)


def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True,
                        scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()])(x)
"""

HELPER_CLEAN = "def copy_in(src, dst, barrier):\n  pass\n"
HELPER_MOSAIC = """from jax.experimental.pallas import mosaic_gpu as plgpu


def copy_in(src, dst, barrier):
  plgpu.copy_gmem_to_smem(src, dst, barrier)
"""


@pytest.fixture
def client(tmp_path):
    # The workspace root is a sibling folder: every file below lies outside it.
    (tmp_path / "ws").mkdir()
    s = StdioServer("--test-methods", "--debounce-ms", "5")
    s.initialize(rootUri=(tmp_path / "ws").as_uri(),
                 workspaceFolders=[{"uri": (tmp_path / "ws").as_uri(), "name": "ws"}])
    yield s
    s.kill()


def text_of(client, uri):
    return client.request("pallas/test/documentText", {"textDocument": {"uri": uri}})["result"]


def changed(client, uri, kind):
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": kind}]})


def findings_of(msg):
    return sorted((d["code"], d["range"]["start"]["line"]) for d in msg["params"]["diagnostics"]
                  if d.get("severity") != HINT)


def next_findings(client, uri, after, want=lambda found: True):
    """The first publish for `uri` after message `after` whose findings
    satisfy `want` (a re-analysis for another reason may publish first)."""
    msg = client.first_after(after, lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri and want(findings_of(m)))
    return findings_of(msg)


def codes(found):
    return {code for code, _ in found}


def test_a_file_outside_the_roots_is_indexed_not_opened(client, tmp_path):
    f = tmp_path / "elsewhere" / "lib.py"
    f.parent.mkdir()
    f.write_text("X = 1\n")
    uri = f.as_uri()
    assert text_of(client, uri)["known"] is False
    changed(client, uri, 1)  # Created
    doc = text_of(client, uri)
    assert doc["known"] is True and doc["project"] == "X = 1\n", doc
    assert doc["open"] is False and doc["projectOpen"] is False, doc
    f.write_text("X = 2\n")
    changed(client, uri, 2)  # Changed
    assert text_of(client, uri)["project"] == "X = 2\n"
    f.unlink()
    changed(client, uri, 3)  # Deleted
    assert text_of(client, uri)["known"] is False


def test_an_open_dependent_is_analysed_again_when_its_helper_changes_on_disk(client, tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    helper = folder / "helpers.py"
    helper.write_text(HELPER_CLEAN)
    main = folder / "main.py"
    main.write_text(MAIN)
    uri = main.as_uri()
    n = len(client.seen)
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": MAIN}})
    before = next_findings(client, uri, n)
    assert "PLS002" not in codes(before), before

    # The helper now calls a Mosaic GPU copy that interpret=True cannot run:
    # main's launch gets the finding without main being edited.
    helper.write_text(HELPER_MOSAIC)
    n = len(client.seen)
    changed(client, helper.as_uri(), 2)
    after = next_findings(client, uri, n, lambda found: "PLS002" in codes(found))
    assert "PLS002" in codes(after), after
    doc = text_of(client, helper.as_uri())
    assert doc["project"] == HELPER_MOSAIC and doc["projectOpen"] is False, doc

    # Back on disk as it was: the finding goes away again.
    helper.write_text(HELPER_CLEAN)
    n = len(client.seen)
    changed(client, helper.as_uri(), 2)
    assert next_findings(client, uri, n, lambda found: "PLS002" not in codes(found)) == before


def test_an_open_document_keeps_the_editor_text(client, tmp_path):
    f = tmp_path / "open.py"
    f.write_text("disk = 1\n")
    uri = f.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": "draft = 1\n"}})
    changed(client, uri, 2)
    doc = text_of(client, uri)
    assert doc["project"] == "draft = 1\n" and doc["projectOpen"] is True, doc
    f.unlink()
    changed(client, uri, 3)
    assert text_of(client, uri)["project"] == "draft = 1\n"
