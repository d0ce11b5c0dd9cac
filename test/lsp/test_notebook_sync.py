"""LSP 3.17 notebook document sync with the real binary: a Jupyter notebook's
Python cells are analysed as one module (the kernel in one cell, its launch
in another), findings land on the cells they are in, with cell-relative
lines, hovers and code actions work on cells, the rewrite's edits go to the
cells they change, and edits and structure changes of cells are followed."""

from pathlib import Path

from test_findings_actions_hover import apply_edits, position_of

KERNEL_FIXTURE = Path(__file__).resolve().parents[1] / "editors" / "fixtures" / "project" / "kernel.py"

IMPORTS = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.mosaic import gpu as mgpu
from jax.experimental.pallas import mosaic_gpu as plgpu
"""
MARKDOWN = "# A kernel\nThe launch below runs it under `interpret=True`."
KERNEL = """%load_ext autoreload
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))
  def double(ctx, x, o):
    del ctx
    v = mgpu.FragmentedArray.load_strided(x)
    (v + v).store_untiled(o)

  double(x_ref, o_ref)
"""
LAUNCH = """def run():
  x = jnp.arange(128, dtype=jnp.float32)
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""


def cell_uri(nb_path, n):
    return f"vscode-notebook-cell:{nb_path}#W{n}sZmlsZQ%3D%3D"


def open_notebook(client, nb_path, texts, kinds):
    nb_uri = Path(nb_path).as_uri()
    cells = [{"kind": k, "document": cell_uri(nb_path, i)} for i, k in enumerate(kinds)]
    client.notify("notebookDocument/didOpen", {
        "notebookDocument": {"uri": nb_uri, "notebookType": "jupyter-notebook", "version": 1, "cells": cells},
        "cellTextDocuments": [
            {"uri": cell_uri(nb_path, i), "languageId": "python" if k == 2 else "markdown", "version": 1, "text": t}
            for i, (t, k) in enumerate(zip(texts, kinds))]})
    return nb_uri


def published(client, after, uris, timeout=60):
    """The next publishDiagnostics for each of `uris` after message `after`: {uri: diagnostics}."""
    got = {}

    def take(m):
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] in uris:
            got[m["params"]["uri"]] = m["params"]["diagnostics"]
        return len(got) == len(uris)
    client.first_after(after, take, timeout=timeout)
    return got


def test_notebook_cells_are_one_module_with_findings_on_their_cells(ready, tmp_path):
    nb_path = str(tmp_path / "kernels.ipynb")
    texts = [IMPORTS, MARKDOWN, KERNEL, LAUNCH]
    kinds = [2, 1, 2, 2]
    mark = len(ready.seen)
    nb_uri = open_notebook(ready, nb_path, texts, kinds)
    code_cells = [cell_uri(nb_path, i) for i in (0, 2, 3)]
    diags = published(ready, mark, code_cells)
    assert diags[cell_uri(nb_path, 0)] == [], "the imports cell has no finding"
    kernel_diags = [d for d in diags[cell_uri(nb_path, 2)] if d["code"] == "PLS001" and d["severity"] != 4]
    assert len(kernel_diags) == 1, diags
    finding = kernel_diags[0]
    call_line, _ = position_of(KERNEL, "double(x_ref, o_ref)")
    assert finding["range"]["start"]["line"] == call_line, "the line within the kernel cell"
    launch_line, _ = position_of(LAUNCH, "pl.pallas_call")
    # Jupyter numbers cells from 1, markdown included: the launch is in cell 4.
    assert finding["message"].split("\n")[0] == \
        f"region 'double' can't run under interpret=True (launch at cell 4, line {launch_line + 1})"
    # Module line numbers never reach the user: "kernels.ipynb:12" is retold too.
    # The call chain is in data (issue 35: the message does not repeat it),
    # retold there too.
    chain = " ".join(finding["data"]["callChain"])
    assert ".ipynb:" not in finding["message"] + chain and "kernels.ipynb cell 3, line" in chain, \
        (finding["message"], chain)
    hints = [d for d in diags[cell_uri(nb_path, 3)] if d["severity"] == 4]
    assert [h["range"]["start"]["line"] for h in hints] == [launch_line], diags[cell_uri(nb_path, 3)]
    assert hints[0]["message"] == \
        f"selects interpret=True, which cannot run region 'double' (cell 3, line {call_line + 1})"
    related = finding.get("relatedInformation", [])
    assert any(r["location"]["uri"] == cell_uri(nb_path, 3)
               and r["location"]["range"]["start"]["line"] == launch_line for r in related), related
    assert not any(m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == nb_uri
                   for m in ready.seen[mark:]), "nothing is published for the notebook itself"

    # Hover on the failing call, asked of the cell.
    line, col = position_of(KERNEL, "double(x_ref", 2)
    hover = ready.request("textDocument/hover", {
        "textDocument": {"uri": cell_uri(nb_path, 2)}, "position": {"line": line, "character": col}})["result"]
    assert hover and "region 'double' can't run under interpret=True" in hover["contents"]["value"], hover
    if "range" in hover:
        assert hover["range"]["start"]["line"] == line

    # The rewrite, asked of the cell: its edits address cells, and applied there the finding goes away.
    actions = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": cell_uri(nb_path, 2)}, "range": finding["range"],
        "context": {"diagnostics": [finding]}})["result"]
    rewrite = [a for a in actions if "standard Pallas" in a["title"]]
    assert rewrite, [a["title"] for a in actions]
    changes = rewrite[0]["edit"]["changes"]
    assert set(changes) <= set(code_cells) and cell_uri(nb_path, 2) in changes, list(changes)
    new_texts = list(texts)
    for uri, edits in changes.items():
        i = int(uri.split("#W")[1].split("s")[0])
        new_texts[i] = apply_edits(new_texts[i], edits)
    content = []
    for uri, edits in changes.items():
        content.append({"document": {"uri": uri, "version": 2},
                        "changes": [{"text": new_texts[int(uri.split('#W')[1].split('s')[0])]}]})
    mark = len(ready.seen)
    ready.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 2},
        "change": {"cells": {"textContent": content}}})
    after = published(ready, mark, code_cells)
    assert all(not d for d in after.values()), after

    # A new cell at the top moves every line; findings follow their cells.
    mark = len(ready.seen)
    ready.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 3},
        "change": {"cells": {
            "structure": {
                "array": {"start": 0, "deleteCount": 0, "cells": [{"kind": 2, "document": cell_uri(nb_path, 9)}]},
                "didOpen": [{"uri": cell_uri(nb_path, 9), "languageId": "python", "version": 1,
                             "text": "# setup\nimport os\n\n\n"}]},
            # ... and the rewritten cells go back to the region and its imports.
            "textContent": [{"document": {"uri": cell_uri(nb_path, 2), "version": 3},
                             "changes": [{"text": KERNEL}]},
                            {"document": {"uri": cell_uri(nb_path, 0), "version": 3},
                             "changes": [{"text": IMPORTS}]}]}}})
    moved = published(ready, mark, code_cells + [cell_uri(nb_path, 9)])
    again = [d for d in moved[cell_uri(nb_path, 2)] if d["code"] == "PLS001" and d["severity"] != 4]
    assert [d["range"]["start"]["line"] for d in again] == [call_line], moved
    assert f"(launch at cell 5, line {launch_line + 1})" in again[0]["message"]
    assert moved[cell_uri(nb_path, 9)] == []

    # An incremental edit inside a cell: interpret=False removes the finding.
    col = LAUNCH.split("\n")[launch_line].index("interpret=True") + len("interpret=")
    mark = len(ready.seen)
    ready.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 4},
        "change": {"cells": {"textContent": [{"document": {"uri": cell_uri(nb_path, 3), "version": 2}, "changes": [
            {"range": {"start": {"line": launch_line, "character": col},
                       "end": {"line": launch_line, "character": col + 4}}, "text": "False"}]}]}}})
    cleared = published(ready, mark, code_cells)
    assert all(not d for d in cleared.values()), cleared

    # Closing clears every cell that had diagnostics.
    mark = len(ready.seen)
    ready.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 5},
        "change": {"cells": {"textContent": [{"document": {"uri": cell_uri(nb_path, 3), "version": 3}, "changes": [
            {"text": LAUNCH}]}]}}})
    back = published(ready, mark, code_cells)
    assert back[cell_uri(nb_path, 2)], "the finding is back"
    mark = len(ready.seen)
    ready.notify("notebookDocument/didClose", {
        "notebookDocument": {"uri": nb_uri},
        "cellTextDocuments": [{"uri": u} for u in code_cells + [cell_uri(nb_path, 1), cell_uri(nb_path, 9)]]})
    closed = published(ready, mark, [cell_uri(nb_path, 2), cell_uri(nb_path, 3)])
    assert all(not d for d in closed.values()), closed


def test_initialize_advertises_notebook_sync_for_python_cells(server):
    caps = server.initialize()["capabilities"]
    selector = caps["notebookDocumentSync"]["notebookSelector"]
    assert {"language": "python"} in selector[0]["cells"], selector


def test_ipython_magics_do_not_break_the_module(ready, tmp_path):
    nb_path = str(tmp_path / "magic.ipynb")
    cells = [IMPORTS + "!pip install jax\n%matplotlib inline\n", "%%bash\necho $((1 +\n", KERNEL, LAUNCH]
    mark = len(ready.seen)
    open_notebook(ready, nb_path, cells, [2, 2, 2, 2])
    diags = published(ready, mark, [cell_uri(nb_path, i) for i in range(4)])
    # A syntax error from the magics would hide the finding.
    assert [d["code"] for d in diags[cell_uri(nb_path, 2)] if d["severity"] != 4] == ["PLS001"], diags
    assert diags[cell_uri(nb_path, 0)] == [] and diags[cell_uri(nb_path, 1)] == []


def test_malformed_notebook_messages_never_stop_the_server(ready, tmp_path):
    nb_uri = (tmp_path / "x.ipynb").as_uri()
    bad = [
        ("notebookDocument/didOpen", {}),
        ("notebookDocument/didOpen", {"notebookDocument": {"uri": 5}}),
        ("notebookDocument/didOpen", {"notebookDocument": {"uri": nb_uri, "cells": "no"}, "cellTextDocuments": [7]}),
        ("notebookDocument/didChange", {"notebookDocument": {"uri": "file:///never/opened.ipynb"}, "change": {}}),
        ("notebookDocument/didChange", {"notebookDocument": {"uri": nb_uri, "version": "x"},
                                        "change": {"cells": {"structure": {"array": {"start": -4, "deleteCount": 99}},
                                                             "textContent": [{"document": {"uri": 3}}, 5]}}}),
        ("notebookDocument/didChange", {"notebookDocument": {"uri": nb_uri, "version": 9},
                                        "change": {"cells": {"textContent": [{"document": {"uri": "vscode-notebook-cell:/x#a", "version": 1},
                                                                              "changes": [{"range": {"start": {"line": 99, "character": 0},
                                                                                                     "end": {"line": 99, "character": 1}}, "text": "x"}]}]}}}),
        ("notebookDocument/didClose", {"notebookDocument": {}}),
        ("notebookDocument/didClose", {"notebookDocument": {"uri": nb_uri}}),
    ]
    for method, params in bad:
        ready.notify(method, params)
    # A request about a cell of no open notebook is an error reply, not a crash.
    resp = ready.request("textDocument/hover", {"textDocument": {"uri": "vscode-notebook-cell:/nope.ipynb#W0"},
                                                "position": {"line": 0, "character": 0}})
    assert "error" in resp or resp.get("result") is None, resp
    # Still serving: a real notebook opened afterwards gets its findings.
    nb_path = str(tmp_path / "after.ipynb")
    mark = len(ready.seen)
    open_notebook(ready, nb_path, [IMPORTS, KERNEL, LAUNCH], [2, 2, 2])
    diags = published(ready, mark, [cell_uri(nb_path, 1)])
    assert [d["code"] for d in diags[cell_uri(nb_path, 1)] if d["severity"] != 4] == ["PLS001"], diags
