"""The scheduler's readers (issue 12) over pipes with the real binary: hover,
code actions, code lenses and pull diagnostics answer from the document's
immutable snapshot, never behind the Project's lock; a reply refers to the
version it was asked about; a newer edit stops the older analysis, whose
version is then never published; didClose releases the snapshot.

"An analysis that is still running" is made deterministic with the test
method pallas/test/holdAnalysis: the next analysis of a document waits inside
the Project's lock until pallas/test/releaseAnalysis, or until a newer edit
stops it. Nothing here measures time."""

import time
from contextlib import contextmanager
from pathlib import Path

from test_findings_actions_hover import KERNEL, position_of

CLEAN = KERNEL.replace("interpret=True", "interpret=False")


def open_doc(server, path, text, version=1):
    uri = Path(path).as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})
    return uri


def change(server, uri, version, text):
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


def publications(server, uri):
    return [m["params"] for m in server.seen
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]


def wait_published(server, uri, version):
    return server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"]["uri"] == uri
                           and m["params"].get("version") == version, timeout=60)["params"]


def hold_next_analysis(server, uri):
    assert server.request("pallas/test/holdAnalysis", {"textDocument": {"uri": uri}})["result"] \
        is None


def held(server):
    return server.request("pallas/test/heldAnalysis")["result"]["held"]


def wait_held(server, path):
    """Until the held analysis of `path` is inside the Project's lock."""
    for _ in range(3000):
        if held(server) == str(path):
            return
        time.sleep(0.01)
    raise AssertionError(f"the analysis of {path} never began")


@contextmanager
def another_analysis_holding_the_project(server, tmp_path):
    """For the span of the block, the analysis of a second document (b.py)
    waits inside the Project's lock. After it: nothing of b was published
    while held, and once released b publishes its finding."""
    b = tmp_path / "b.py"
    b_uri = Path(b).as_uri()
    hold_next_analysis(server, b_uri)
    open_doc(server, b, KERNEL)
    wait_held(server, b)
    yield
    # Every reply inside the block came while b's analysis was still running.
    assert held(server) == str(b)
    assert not publications(server, b_uri)
    server.request("pallas/test/releaseAnalysis")
    assert {d["code"] for d in wait_published(server, b_uri, 1)["diagnostics"]} == {"PLS001"}


def hover_params(uri, line, character):
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def action_params(uri):
    """Every quick fix of the document (the range covers it all)."""
    return {"textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0},
                      "end": {"line": 10000, "character": 0}},
            "context": {"diagnostics": []}}


def launch_line(text):
    return position_of(text, "pl.pallas_call")[0]


def test_readers_answer_while_another_documents_analysis_holds_the_project(ready, tmp_path):
    a = tmp_path / "a.py"
    a_uri = open_doc(ready, a, KERNEL)
    line, col = position_of(KERNEL, "pl.pallas_call", 3)
    # Answered once at rest: its snapshot (findings, fixes, hover facts) exists.
    assert "PLS001" in ready.request("textDocument/hover",
                                     hover_params(a_uri, line, col))["result"]["contents"]["value"]
    lenses_at_rest = ready.request("textDocument/codeLens",
                                   {"textDocument": {"uri": a_uri}})["result"]

    with another_analysis_holding_the_project(ready, tmp_path):
        hover = ready.request("textDocument/hover", hover_params(a_uri, line, col))["result"]
        assert "PLS001" in hover["contents"]["value"]
        assert "Paths that can run this launch" in hover["contents"]["value"]
        actions = ready.request("textDocument/codeAction", action_params(a_uri))["result"]
        assert any(x["title"].startswith("Pallas: ") and "PLS001" in
                   [d.get("code") for d in x.get("diagnostics", [])] for x in actions), actions
        pulled = ready.request("textDocument/diagnostic",
                               {"textDocument": {"uri": a_uri}})["result"]
        assert {d["code"] for d in pulled["items"]} == {"PLS001"}
        lenses = ready.request("textDocument/codeLens", {"textDocument": {"uri": a_uri}})["result"]
        assert lenses == lenses_at_rest


def test_a_reply_refers_to_the_version_it_was_asked_about(ready, tmp_path):
    path = tmp_path / "k.py"
    uri = open_doc(ready, path, CLEAN)
    assert wait_published(ready, uri, 1)["diagnostics"] == []
    line, col = position_of(KERNEL, "pl.pallas_call", 3)
    assert "PLS001" not in (ready.request("textDocument/hover", hover_params(uri, line, col))
                            ["result"] or {"contents": {"value": ""}})["contents"]["value"]

    # Version 2 has the finding; its analysis is held, so version 1's
    # snapshot is the newest one while the requests below are sent.
    hold_next_analysis(ready, uri)
    change(ready, uri, 2, KERNEL)
    wait_held(ready, path)
    hover_id = ready.request_async("textDocument/hover", hover_params(uri, line, col))
    action_id = ready.request_async("textDocument/codeAction", action_params(uri))
    pull_id = ready.request_async("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    ready.request("pallas/test/releaseAnalysis")

    # Each answers from version 2, none from version 1's snapshot.
    assert "PLS001" in ready.response(hover_id, timeout=60)["result"]["contents"]["value"]
    actions = ready.response(action_id, timeout=60)["result"]
    assert any("PLS001" in [d.get("code") for d in x.get("diagnostics", [])] for x in actions)
    assert {d["code"] for d in ready.response(pull_id, timeout=60)["result"]["items"]} == \
        {"PLS001"}
    assert {d["code"] for d in wait_published(ready, uri, 2)["diagnostics"]} == {"PLS001"}


def test_a_newer_edit_stops_the_older_analysis_which_publishes_nothing(ready, tmp_path):
    path = tmp_path / "k.py"
    uri = open_doc(ready, path, KERNEL)
    wait_published(ready, uri, 1)
    hold_next_analysis(ready, uri)
    change(ready, uri, 2, KERNEL + "\n# version 2\n")
    wait_held(ready, path)  # version 2's analysis is running (held)
    # Version 3 stops it: the held analysis gives up at the stop, and the
    # edit does not wait for it to finish its work.
    change(ready, uri, 3, CLEAN)
    assert wait_published(ready, uri, 3)["diagnostics"] == []
    line, col = position_of(KERNEL, "pl.pallas_call", 3)
    hover = ready.request("textDocument/hover", hover_params(uri, line, col))["result"]
    assert hover is None or "PLS001" not in hover["contents"]["value"]
    versions = [p.get("version") for p in publications(ready, uri)]
    assert 2 not in versions, versions
    assert versions == sorted(versions), versions  # never a stale version after a newer one
    assert held(ready) is None


def test_did_close_releases_every_snapshot(ready, tmp_path):
    uris = []
    for i in range(3):
        uri = open_doc(ready, tmp_path / f"k{i}.py", KERNEL)
        line, col = position_of(KERNEL, "pl.pallas_call", 3)
        assert ready.request("textDocument/hover", hover_params(uri, line, col))["result"]
        uris.append(uri)
    assert ready.request("pallas/test/snapshots")["result"]["snapshots"] == 3
    for uri in uris:
        ready.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    kept = None
    for _ in range(500):  # a worker that was still finishing lets go when it returns
        kept = ready.request("pallas/test/snapshots")["result"]
        if kept == {"snapshots": 0, "scheduled": 0}:
            break
        time.sleep(0.01)
    assert kept == {"snapshots": 0, "scheduled": 0}
    # A closed document has no snapshot to answer from.
    assert ready.request("textDocument/hover", hover_params(uris[0], 0, 0))["result"] is None


def mlir(server, uri):
    return server.request("pallas/mlir", {"textDocument": {"uri": uri}})["result"]


def test_mlir_answers_from_the_snapshot_while_another_analysis_holds_the_project(ready, tmp_path):
    a = tmp_path / "a.py"
    a_uri = open_doc(ready, a, KERNEL)
    wait_published(ready, a_uri, 1)
    at_rest = mlir(ready, a_uri)  # printed once for version 1, kept in its snapshot
    assert at_rest["mlir"].startswith("module")
    assert "pallas.inline_mgpu" in at_rest["mlir"]
    assert at_rest["functionsTotal"] > 0

    with another_analysis_holding_the_project(ready, tmp_path):
        # Answered from a's snapshot: the Project's lock (held by b's
        # analysis) was what the request used to wait for.
        asked = ready.request_async("pallas/mlir", {"textDocument": {"uri": a_uri}})
        reply = ready.response(asked, timeout=20)
        assert reply["result"] == at_rest
        assert reply["result"]["version"] == 1


def test_mlir_refers_to_the_version_it_was_asked_about(ready, tmp_path):
    path = tmp_path / "k.py"
    uri = open_doc(ready, path, KERNEL)
    wait_published(ready, uri, 1)
    first = mlir(ready, uri)
    assert first["version"] == 1 and "@added_in_v2" not in first["mlir"]

    # Version 2 adds a function; its analysis is held: the request asked
    # after the edit answers with version 2's module, never version 1's.
    hold_next_analysis(ready, uri)
    change(ready, uri, 2, KERNEL + "\n\ndef added_in_v2():\n  return 2\n")
    wait_held(ready, path)
    asked = ready.request_async("pallas/mlir", {"textDocument": {"uri": uri}})
    ready.request("pallas/test/releaseAnalysis")
    second = ready.response(asked, timeout=60)["result"]
    assert second["version"] == 2
    assert "@added_in_v2" in second["mlir"]
    assert second["functionsTotal"] == first["functionsTotal"] + 1
    assert mlir(ready, uri) == second  # the same version: its kept text
