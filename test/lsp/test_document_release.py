"""didClose lets go of everything the server keeps per document (its
schedule, generation and stats), over pipes with the real binary: a
document closed while its analysis is pending or running publishes nothing
after the empty close publication, reopening it (same URI, any version)
analyses it afresh, and pallas/mlir still answers for it once reopened."""

import time

from test_findings_actions_hover import KERNEL

PATH = "/tmp/pallas-release/kernel.py"
URI = "file://" + PATH


def publications(server, uri):
    return [m["params"] for m in server.seen
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]


def open_doc(server, version, text):
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "python", "version": version, "text": text}})


def wait_version(server, version, timeout=60):
    return server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"]["uri"] == URI and m["params"].get("version") == version,
                           timeout)["params"]


def test_close_while_pending_publishes_nothing_after_the_close(ready):
    open_doc(ready, 1, KERNEL)
    first = wait_version(ready, 1)
    assert any(d["code"] == "PLS001" for d in first["diagnostics"])
    # An edit whose analysis is running when the close arrives: held inside
    # the Project's lock (pallas/test/holdAnalysis) until the close makes it
    # stale, so a busy machine cannot let it finish and publish first.
    assert ready.request("pallas/test/holdAnalysis", {"textDocument": {"uri": URI}})["result"] \
        is None
    ready.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                            "contentChanges": [{"text": KERNEL + "\n# edited\n"}]})
    for _ in range(3000):
        if ready.request("pallas/test/heldAnalysis")["result"]["held"] == PATH:
            break
        time.sleep(0.01)
    else:
        raise AssertionError("the analysis of version 2 never began")
    ready.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
    # The close publication: empty, without a version.
    ready.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == URI and m["params"]["diagnostics"] == []
                   and "version" not in m["params"])
    # A request after the close is answered after it was handled; then give
    # a stale analysis time to (wrongly) publish.
    ready.request("pallas/test/sleep", {"ms": 0})
    time.sleep(1.0)
    ready.request("pallas/test/sleep", {"ms": 0})
    pubs = publications(ready, URI)
    assert pubs[-1]["diagnostics"] == [] and "version" not in pubs[-1], pubs[-1]
    assert all(p.get("version") != 2 for p in pubs), "an analysis of the closed document published"


def test_reopen_after_close_analyses_afresh(ready):
    open_doc(ready, 5, KERNEL)
    assert wait_version(ready, 5)["diagnostics"]
    ready.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
    # Reopened at a lower version (a new editor session): its own analysis runs.
    open_doc(ready, 1, KERNEL.replace("interpret=True", "interpret=False"))
    again = wait_version(ready, 1)
    assert not any(d["code"] == "PLS001" for d in again["diagnostics"]), again
    mlir = ready.request("pallas/mlir", {"textDocument": {"uri": URI}})
    assert "result" in mlir and mlir["result"]["functionsTotal"] > 0, mlir
