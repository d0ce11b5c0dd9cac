"""Every bad input from the issue gets the right error and the server keeps
serving afterwards (checked with a follow-up request each time)."""

import json

from lspclient import frame


def still_serving(client):
    resp = client.request("pallas/test/sleep", {"ms": 0})
    assert resp["result"] == {"slept": 0}, resp


def test_malformed_header(ready):
    n = len(ready.seen)
    ready.send_raw(b"Content-Lenght 12\r\n\r\n{\"jsonrpc\":1}")
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "malformed header" in err["error"]["message"]
    still_serving(ready)


def test_missing_content_length(ready):
    n = len(ready.seen)
    ready.send_raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"jsonrpc\":\"2.0\"}")
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "missing Content-Length" in err["error"]["message"]
    still_serving(ready)


def test_huge_content_length_is_capped(ready):
    n = len(ready.seen)
    ready.send_raw(b"Content-Length: 999999999999\r\n\r\n")
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "exceeds the limit of 67108864 bytes" in err["error"]["message"]
    still_serving(ready)


def test_non_numeric_content_length(ready):
    n = len(ready.seen)
    ready.send_raw(b"Content-Length: twelve\r\n\r\n")
    err = ready.error_with_null_id(n)
    assert "invalid Content-Length" in err["error"]["message"]
    still_serving(ready)


def test_truncated_body_followed_by_next_message(ready):
    n = len(ready.seen)
    # Says 200 bytes, sends 20: the next message's header lands in this body.
    ready.send_raw(b"Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\"")
    rid = ready.request_async("pallas/test/sleep", {"ms": 0})
    ready.send_raw(b" " * 200)  # so that the bogus 200-byte body completes
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "truncated" in err["error"]["message"]
    assert ready.response(rid)["result"] == {"slept": 0}
    still_serving(ready)


def test_truncated_body_at_end_of_stream(ready):
    ready.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
    ready.close()
    assert ready.wait() == 1
    assert "stream ended inside a message body" in ready.stderr()


def test_invalid_json(ready):
    n = len(ready.seen)
    ready.send(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "invalid JSON" in err["error"]["message"]
    still_serving(ready)


def test_json_that_is_not_json_rpc(ready):
    for body, expect_id in ((b"[1, 2, 3]", None), (b"\"hello\"", None),
                            (b"{\"id\": 7, \"method\": \"x\"}", 7),
                            (b"{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": 42}", 8),
                            (b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"m\", \"params\": 1}", 9)):
        n = len(ready.seen)
        ready.send(body)
        reply = ready.first_after(n, lambda m: "error" in m)
        assert reply["error"]["code"] == -32600, body
        assert reply["id"] == expect_id, body
    still_serving(ready)


def test_unknown_method(ready):
    resp = ready.request("textDocument/noSuchThing", {})
    assert resp["error"]["code"] == -32601
    assert "textDocument/noSuchThing" in resp["error"]["message"]
    # An unknown notification is not an error (and gets no reply).
    ready.notify("$/noSuchNotification", {})
    ready.notify("custom/unknownNotification", {})
    still_serving(ready)


def test_wrong_parameter_types(ready):
    cases = [
        ("pallas/mlir", None, "params must be an object"),
        ("pallas/mlir", {"textDocument": 5}, "params.textDocument must be an object"),
        ("pallas/mlir", {"textDocument": {"uri": 5}}, "params.textDocument.uri must be a string"),
        ("textDocument/diagnostic", {"textDocument": {}}, "params.textDocument.uri is required"),
        ("workspace/executeCommand", {"command": ["x"]}, "params.command must be a string"),
        ("pallas/test/sleep", {"ms": "long"}, "params.ms must be an integer"),
    ]
    for method, params, message in cases:
        resp = ready.request(method, params)
        assert resp["error"]["code"] == -32602, (method, resp)
        assert message in resp["error"]["message"], (method, resp)
    still_serving(ready)


def test_wrong_types_in_initialize(server):
    resp = server.request("initialize", {"capabilities": "none"})
    assert resp["error"]["code"] == -32602
    resp = server.request("initialize", {"capabilities": {"general": {"positionEncodings": 8}}})
    assert resp["error"]["code"] == -32602
    server.initialize()


def test_wrong_types_in_notification_are_logged(ready):
    ready.notify("textDocument/didOpen", {"textDocument": {"uri": 1, "text": "x"}})
    ready.log_message("params.textDocument.uri must be a string", type_=1)
    still_serving(ready)


def test_edit_to_never_opened_document(ready):
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": "file:///never.py", "version": 2},
        "contentChanges": [{"text": "x = 1\n"}]})
    msg = ready.log_message("never opened", type_=1)
    assert "file:///never.py" in msg["params"]["message"]
    doc = ready.request("pallas/test/documentText", {"textDocument": {"uri": "file:///never.py"}})
    assert doc["result"] == {"open": False, "known": False, "projectOpen": False}
    still_serving(ready)


def open_doc(client, uri, text, version=1):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})


def test_range_outside_document(ready):
    uri = "file:///outside.py"
    open_doc(ready, uri, "a = 1\nb = 2\n")
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                      "end": {"line": 0, "character": 1}}, "text": "z"},
                           {"range": {"start": {"line": 10, "character": 0},
                                      "end": {"line": 10, "character": 3}}, "text": "y"}]})
    msg = ready.log_message("outside the document", type_=1)
    assert "line 10" in msg["params"]["message"]
    doc = ready.request("pallas/test/documentText", {"textDocument": {"uri": uri}})["result"]
    # The whole change was rejected: neither edit applied, version unchanged.
    assert doc["draft"] == "a = 1\nb = 2\n" == doc["project"]
    assert doc["version"] == 1


def test_invalid_utf8_in_document(ready):
    n = len(ready.seen)
    body = (b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":'
            b'{"uri":"file:///bad.py","languageId":"python","version":1,"text":"x = \'\xff\xfe\'"}}}')
    ready.send(body)
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    assert "UTF-8" in err["error"]["message"]
    # A lone surrogate escape is not valid text either.
    n = len(ready.seen)
    ready.send(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": "file:///bad2.py", "languageId": "python", "version": 1,
                         "text": "PLACEHOLDER"}}}).replace("PLACEHOLDER", "\\udc00").encode())
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    for uri in ("file:///bad.py", "file:///bad2.py"):
        doc = ready.request("pallas/test/documentText", {"textDocument": {"uri": uri}})
        assert doc["result"]["open"] is False
    still_serving(ready)


def test_response_to_unknown_request_is_ignored(ready):
    ready.send({"jsonrpc": "2.0", "id": 424242, "result": {}})
    ready.log_message("response to unknown request id 424242", type_=2)
    still_serving(ready)


def test_many_bad_inputs_in_one_write(ready):
    junk = (b"garbage\r\n\r\n" + frame(b"not json") + frame(b"[]") +
            b"Content-Length: 5\r\n\r\n{}" + b"\r\n\r\n")
    ready.send_raw(junk)
    still_serving(ready)


def test_number_out_of_range(ready):
    """Found by fuzz_protocol: a number nlohmann/json cannot represent threw
    out_of_range (not parse_error) and terminated the server."""
    n = len(ready.seen)
    ready.send(b'{"jsonrpc": "2.0", "id": 1E999, "method": "x"}')
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32700
    still_serving(ready)
