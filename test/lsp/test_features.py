"""Document sync, position encodings, diagnostics (push and pull), pallas/mlir,
cancellation, server->client requests, progress, watched files, TCP."""

import threading
import time

from lspclient import StdioServer, TcpListener


def open_doc(client, uri, text, version=1):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})


def change(client, uri, version, *changes):
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": list(changes)})


def rng(l1, c1, l2, c2):
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def text_of(client, uri):
    return client.request("pallas/test/documentText", {"textDocument": {"uri": uri}})["result"]


TEXT = "s = 'é中😀x'\n# ok\n"


def test_incremental_sync_utf16(ready):
    uri = "file:///tmp/sync16.py"
    open_doc(ready, uri, TEXT)
    # UTF-16: s,=,' ... 'é' at 5, '中' at 6, '😀' at 7-8, 'x' at 9.
    change(ready, uri, 2, {"range": rng(0, 9, 0, 10), "text": "y"})
    change(ready, uri, 3, {"range": rng(0, 7, 0, 9), "text": "🎉🎉"},
           {"range": rng(1, 2, 1, 4), "text": "fine"})
    doc = text_of(ready, uri)
    assert doc["draft"] == "s = 'é中🎉🎉y'\n# fine\n"
    assert doc["project"] == doc["draft"]
    assert doc["version"] == 3


def test_incremental_sync_utf8(server):
    server.initialize({"general": {"positionEncodings": ["utf-8"]}})
    uri = "file:///tmp/sync8.py"
    open_doc(server, uri, TEXT)
    # UTF-8 bytes: 'é' 5-7, '中' 7-10, '😀' 10-14, 'x' 14.
    change(server, uri, 2, {"range": rng(0, 7, 0, 14), "text": "-"})
    assert text_of(server, uri)["draft"] == "s = 'é-x'\n# ok\n"


def test_split_surrogate_is_rejected(ready):
    uri = "file:///tmp/split.py"
    open_doc(ready, uri, TEXT)
    change(ready, uri, 2, {"range": rng(0, 8, 0, 8), "text": "!"})
    ready.log_message("surrogate pair", type_=1)
    assert text_of(ready, uri)["draft"] == TEXT


def test_column_past_line_end_clamps(ready):
    uri = "file:///tmp/clamp.py"
    open_doc(ready, uri, "ab\ncd\n")
    change(ready, uri, 2, {"range": rng(0, 99, 0, 99), "text": "!"})
    assert text_of(ready, uri)["draft"] == "ab!\ncd\n"


def test_full_sync_change_and_close(ready):
    uri = "file:///tmp/full.py"
    open_doc(ready, uri, "a\n")
    change(ready, uri, 2, {"text": "b\n"})
    assert text_of(ready, uri)["draft"] == "b\n"
    ready.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    ready.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    closed = ready.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri and "version" not in m["params"])
    assert closed["params"]["diagnostics"] == []
    assert text_of(ready, uri)["open"] is False


def test_push_diagnostics_after_open_and_edit(ready):
    uri = "file:///tmp/push.py"
    open_doc(ready, uri, "x = 1\n", version=4)
    pub = ready.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri)
    assert pub["params"]["version"] == 4
    assert isinstance(pub["params"]["diagnostics"], list)
    change(ready, uri, 5, {"text": "x = 2\n"})
    pub = ready.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"].get("version") == 5)
    assert pub["params"]["uri"] == uri


def test_rapid_edits_publish_only_the_latest(ready):
    uri = "file:///tmp/debounce.py"
    open_doc(ready, uri, "")
    for v in range(2, 40):
        change(ready, uri, v, {"range": rng(0, 0, 0, 0), "text": "x"})
    last = ready.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"].get("version") == 39)
    assert last
    versions = [m["params"].get("version") for m in ready.seen
                if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri]
    # Debounced: far fewer publications than edits, never out of order.
    assert len(versions) < 38
    assert versions == sorted(versions)


def test_pull_diagnostics(server):
    caps = server.initialize({"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    provider = caps["capabilities"]["diagnosticProvider"]
    assert provider["interFileDependencies"] is True
    uri = "file:///tmp/pull.py"
    open_doc(server, uri, "y = 1\n")
    report = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    assert report["kind"] == "full"
    assert report["items"] == []
    again = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri},
                                                        "previousResultId": report["resultId"]})
    assert again["result"] == {"kind": "unchanged", "resultId": report["resultId"]}
    change(server, uri, 2, {"text": "y = 2\n"})
    after = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri},
                                                        "previousResultId": report["resultId"]})
    assert after["result"]["kind"] == "full"
    ws = server.request("workspace/diagnostic", {"previousResultIds": []})["result"]
    assert [i["uri"] for i in ws["items"]] == [uri]
    assert ws["items"][0]["version"] == 2
    # Pull clients get no pushed diagnostics.
    assert not [m for m in server.seen if m.get("method") == "textDocument/publishDiagnostics"]


def test_mlir_request(ready):
    uri = "file:///tmp/mlir.py"
    open_doc(ready, uri, "def f():\n    return 1\n")
    result = ready.request("pallas/mlir", {"textDocument": {"uri": uri}})["result"]
    assert "module" in result["mlir"]
    assert isinstance(result["functionsTotal"], int)
    assert isinstance(result["functionsRelowered"], int)
    resp = ready.request("pallas/mlir", {"textDocument": {"uri": "file:///tmp/not-open.py"}})
    assert resp["error"]["code"] == -32602
    assert "not open" in resp["error"]["message"]


def test_cancel_request_in_flight(ready):
    slow = ready.request_async("pallas/test/sleep", {"ms": 20000}, id="slow-1")
    time.sleep(0.05)
    # The slow request blocks neither reading nor other requests.
    start = time.monotonic()
    assert ready.request("pallas/test/sleep", {"ms": 1})["result"] == {"slept": 1}
    assert time.monotonic() - start < 5
    ready.notify("$/cancelRequest", {"id": slow})
    resp = ready.response(slow, timeout=5)
    assert resp["error"]["code"] == -32800


def test_cancel_unknown_request_is_harmless(ready):
    ready.notify("$/cancelRequest", {"id": 99999})
    ready.notify("$/cancelRequest", {"nope": 1})
    assert ready.request("pallas/test/sleep", {"ms": 0})["result"] == {"slept": 0}


def test_server_to_client_configuration_request(server):
    server.auto_reply["workspace/configuration"] = [{"logLevel": "debug"}]
    server.auto_reply["client/registerCapability"] = None
    server.initialize({"workspace": {"configuration": True,
                                     "didChangeWatchedFiles": {"dynamicRegistration": True}}})
    req = server.wait_for(lambda m: m.get("method") == "workspace/configuration")
    assert req["params"]["items"] == [{"section": "pallas-lsp"}]
    # The reply (matched back by id) was applied.
    server.log_message("configuration received: logLevel=debug")
    reg = server.wait_for(lambda m: m.get("method") == "client/registerCapability")
    watchers = reg["params"]["registrations"][0]["registerOptions"]["watchers"]
    assert {"globPattern": "**/*.py"} in watchers
    assert "client refused" not in " ".join(str(m) for m in server.seen)


def test_server_to_client_request_error_reply(server):
    server.initialize({"workspace": {"configuration": True}})
    req = server.wait_for(lambda m: m.get("method") == "workspace/configuration")
    server.send({"jsonrpc": "2.0", "id": req["id"],
                 "error": {"code": -32601, "message": "not supported"}})
    server.log_message("workspace/configuration failed", type_=2)


def test_work_done_progress(server):
    server.auto_reply["window/workDoneProgress/create"] = None
    server.initialize({"window": {"workDoneProgress": True}})
    token = server.request("pallas/test/progress", {})["result"]["token"]
    create = server.wait_for(lambda m: m.get("method") == "window/workDoneProgress/create")
    assert create["params"]["token"] == token
    kinds = []
    for _ in range(3):
        msg = server.wait_for(lambda m: m.get("method") == "$/progress"
                              and m["params"]["value"]["kind"] not in kinds)
        kinds.append(msg["params"]["value"]["kind"])
    assert kinds == ["begin", "report", "end"]
    server.wait_for(lambda m: m.get("method") == "window/showMessage")


def test_watched_files_are_reloaded(ready, tmp_path):
    f = tmp_path / "lib.py"
    f.write_text("def helper():\n    pass\n")
    uri = "file://" + str(f)
    ready.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 1}]})
    assert text_of(ready, uri)["project"] == "def helper():\n    pass\n"
    assert text_of(ready, uri)["projectOpen"] is False  # read from disk, not opened
    f.write_text("def helper():\n    return 2\n")
    ready.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2}]})
    assert text_of(ready, uri)["project"] == "def helper():\n    return 2\n"
    f.unlink()  # the disk decides: a "deleted" file that still exists is read again
    ready.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 3}]})
    assert text_of(ready, uri)["known"] is False
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff'\n")
    ready.notify("workspace/didChangeWatchedFiles",
                 {"changes": [{"uri": "file://" + str(bad), "type": 1}, {"bogus": 1}]})
    ready.log_message("is not valid UTF-8", type_=2)


def test_watched_file_does_not_override_open_draft(ready, tmp_path):
    f = tmp_path / "open.py"
    f.write_text("disk\n")
    uri = "file://" + str(f)
    open_doc(ready, uri, "draft\n")
    ready.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2}]})
    assert text_of(ready, uri)["project"] == "draft\n"


def test_tcp_transport_serves_two_clients():
    listener = TcpListener("--test-methods")
    try:
        a, b = listener.connect(), listener.connect()
        assert a.initialize()["capabilities"]["positionEncoding"] == "utf-16"
        assert b.initialize()["capabilities"]["positionEncoding"] == "utf-16"
        # Sessions are independent: a document opened by a is unknown to b.
        open_doc(a, "file:///tcp.py", "x = 1\n")
        assert text_of(a, "file:///tcp.py")["open"] is True
        assert text_of(b, "file:///tcp.py")["open"] is False
        # A slow request on a does not delay b.
        a.request_async("pallas/test/sleep", {"ms": 3000}, id="slow")
        t = time.monotonic()
        assert b.request("pallas/test/sleep", {"ms": 0})["result"] == {"slept": 0}
        assert time.monotonic() - t < 2
        a.notify("$/cancelRequest", {"id": "slow"})
        assert a.response("slow")["error"]["code"] == -32800
        a.shutdown_and_exit()
        a.drain_until_eof()
        # The listener keeps serving b after a left.
        assert b.request("pallas/test/sleep", {"ms": 0})["result"] == {"slept": 0}
        b.close()
        c = listener.connect()
        c.initialize()
    finally:
        assert listener.stop() == 0


def test_concurrent_requests_from_threads(ready):
    ids = []
    lock = threading.Lock()

    def fire():
        for _ in range(20):
            with lock:
                ids.append(ready.request_async("pallas/test/sleep", {"ms": 1}))

    threads = [threading.Thread(target=fire) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in ids:
        assert ready.response(i)["result"] == {"slept": 1}


def test_unknown_command(ready):
    resp = ready.request("workspace/executeCommand", {"command": "pallas.noSuchCommand"})
    assert resp["error"]["code"] == -32602
    assert "unknown command: pallas.noSuchCommand" in resp["error"]["message"]


def test_code_lens_for_unknown_document_is_empty(ready):
    resp = ready.request("textDocument/codeLens", {"textDocument": {"uri": "file:///none.py"}})
    assert resp["result"] == []
