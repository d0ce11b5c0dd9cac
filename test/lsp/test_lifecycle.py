"""LSP 3.17 lifecycle: initialize, initialized, shutdown, exit, exit codes,
and the errors for requests out of order."""

from lspclient import StdioServer


def test_initialize_advertises_only_what_works(server):
    result = server.initialize()
    caps = result["capabilities"]
    assert result["serverInfo"]["name"] == "pallas-lsp"
    assert caps["positionEncoding"] == "utf-16"
    assert caps["textDocumentSync"] == {"openClose": True, "change": 2,
                                        "save": {"includeText": False}}
    # No pull support offered by this client: diagnostics are pushed.
    assert "diagnosticProvider" not in caps
    for unimplemented in ("completionProvider", "definitionProvider"):
        assert unimplemented not in caps


def test_shutdown_then_exit_gives_code_0(ready):
    ready.shutdown_and_exit()
    assert ready.wait() == 0


def test_exit_without_shutdown_gives_code_1(ready):
    ready.notify("exit")
    assert ready.wait() == 1


def test_end_of_input_without_exit_gives_code_1(ready):
    ready.close()
    assert ready.wait() == 1


def test_request_before_initialize_is_refused(server):
    resp = server.request("textDocument/diagnostic", {"textDocument": {"uri": "file:///a.py"}})
    assert resp["error"]["code"] == -32002
    assert "before initialize" in resp["error"]["message"]
    # Unknown methods too: the lifecycle comes first.
    assert server.request("no/such")["error"]["code"] == -32002
    # And the server still initializes afterwards.
    server.initialize()
    server.shutdown_and_exit()
    assert server.wait() == 0


def test_notification_before_initialize_is_dropped(server):
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": "file:///early.py", "languageId": "python", "version": 1, "text": "x = 1\n"}})
    server.initialize()
    doc = server.request("pallas/test/documentText", {"textDocument": {"uri": "file:///early.py"}})
    assert doc["result"]["open"] is False


def test_second_initialize_is_invalid(ready):
    resp = ready.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert resp["error"]["code"] == -32600


def test_requests_after_shutdown_are_invalid(ready):
    assert ready.request("shutdown")["result"] is None
    resp = ready.request("pallas/mlir", {"textDocument": {"uri": "file:///a.py"}})
    assert resp["error"]["code"] == -32600
    assert "shut down" in resp["error"]["message"]
    assert ready.request("shutdown")["error"]["code"] == -32600
    ready.notify("exit")
    assert ready.wait() == 0


def test_utf8_is_chosen_when_offered(server):
    caps = server.initialize({"general": {"positionEncodings": ["utf-32", "utf-8", "utf-16"]}})
    assert caps["capabilities"]["positionEncoding"] == "utf-8"


def test_utf16_when_only_unknown_encodings_offered(server):
    caps = server.initialize({"general": {"positionEncodings": ["latin-1"]}})
    assert caps["capabilities"]["positionEncoding"] == "utf-16"


def test_log_file_receives_records(tmp_path):
    log = tmp_path / "server.log"
    s = StdioServer("--log-file", str(log), "--log-level", "debug")
    try:
        s.initialize()
        s.shutdown_and_exit()
        assert s.wait() == 0
    finally:
        s.kill()
    text = log.read_text()
    assert "initialized for" in text
    assert "<-- initialize" in text  # debug traffic
    assert s.stderr() == ""  # everything went to the file


def test_log_level_error_silences_info(tmp_path):
    s = StdioServer("--log-level", "error")
    try:
        s.initialize()
        s.shutdown_and_exit()
        assert s.wait() == 0
    finally:
        s.kill()
    assert "initialized for" not in s.stderr()
    assert not [m for m in s.seen if m.get("method") == "window/logMessage"]


def test_stdin_from_a_regular_file(tmp_path):
    """`pallas-lsp serve < transcript` works (epoll cannot watch files)."""
    import subprocess

    from lspclient import BIN, frame
    script = tmp_path / "in.lsp"
    script.write_bytes(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"processId": None, "rootUri": None, "capabilities": {}}}) +
        frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}) +
        frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) +
        frame({"jsonrpc": "2.0", "method": "exit"}))
    with open(script, "rb") as stdin:
        r = subprocess.run([BIN, "serve", "--stdio"], stdin=stdin, capture_output=True,
                           timeout=30)
    assert r.returncode == 0, r.stderr
    assert b'"id":1' in r.stdout and b'"id":2' in r.stdout
