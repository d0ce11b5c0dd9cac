"""Adversarial input over the wire (issue 14): each case is one an attacker or
an unlucky client could send, and the server answers it and keeps serving."""

import json
import os
import socket
import subprocess
import tempfile

import pytest

from lspclient import BIN, TIMEOUT, Client, StdioServer, TcpListener, frame


def still_serving(client):
    resp = client.request("pallas/test/sleep", {"ms": 0})
    assert resp["result"] == {"slept": 0}, resp


def deep_request(depth, id=1):
    """A request whose params nest `depth` arrays (200 KB at 100,000)."""
    return ('{"jsonrpc":"2.0","id":%d,"method":"pallas/test/sleep","params":{"ms":%s0%s}}'
            % (id, "[" * depth, "]" * depth)).encode()


# ---- 1. JSON nested 100,000 deep ---------------------------------------------

def test_deep_json_as_the_first_message_is_refused(server):
    # Before initialize: the refusal happens at parse time, ahead of the
    # lifecycle, and names the request's id so the client does not wait.
    server.send(deep_request(100_000, id=7))
    reply = server.response(7)
    assert reply["error"]["code"] == -32600, reply
    assert "deeper than 256 levels" in reply["error"]["message"]
    server.initialize()
    still_serving(server)


def test_deep_json_notification_and_response(ready):
    n = len(ready.seen)
    ready.send(('{"jsonrpc":"2.0","method":"textDocument/didOpen","params":%s{}%s}'
                % ("[" * 50_000, "]" * 50_000)).encode())
    err = ready.error_with_null_id(n)
    assert err["error"]["code"] == -32600
    n = len(ready.seen)
    ready.send(('{"jsonrpc":"2.0","id":99,"result":%s1%s}' % ("{\"a\":" * 50_000, "}" * 50_000))
               .encode())
    assert ready.first_after(n, lambda m: "error" in m)["error"]["code"] == -32600
    still_serving(ready)


def test_nesting_at_the_limit_is_accepted(ready):
    # 256 levels in all (the message object is the first): served normally.
    resp = ready.request("pallas/test/sleep", json.loads('{"ms":0,"x":%s%s}' % ("[" * 254, "]" * 254)))
    assert resp["result"] == {"slept": 0}, resp
    n = len(ready.seen)
    ready.send(deep_request(256, id=31))
    assert ready.response(31)["error"]["code"] == -32600
    # Brackets inside strings are not nesting.
    resp = ready.request("pallas/test/sleep", {"ms": 0, "s": "[" * 100_000})
    assert resp["result"] == {"slept": 0}, resp


def test_deep_json_over_tcp_leaves_other_connections_alive():
    listener = TcpListener("--test-methods")
    try:
        a, b = listener.connect(), listener.connect()
        for c in (a, b):
            c.initialize()
        a.send(deep_request(100_000, id=5))
        assert a.response(5)["error"]["code"] == -32600
        still_serving(a)
        still_serving(b)
        c = listener.connect()
        c.initialize()
        still_serving(c)
    finally:
        assert listener.stop() == 0


# ---- 12. lone-CR line ends and document versions ------------------------------

KERNEL = """import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)
  o_ref[...] = x_ref[...]


def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""
REGION_LINE = 10  # 0-based line of `region(o_ref)`


def open_doc(client, uri, text, version=1):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})


def diagnostics(client, uri, version):
    msg = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") == version,
                          timeout=60)
    return msg["params"]["diagnostics"]


def document(client, uri):
    return client.request("pallas/test/documentText", {"textDocument": {"uri": uri}})["result"]


def test_lone_cr_document_gets_findings_at_the_right_lines(ready):
    for ending, name in (("\r", "cr"), ("\r\n", "crlf"), ("\n", "lf")):
        uri = "file:///tmp/pallas-hardening-%s.py" % name
        open_doc(ready, uri, KERNEL.replace("\n", ending))
        diags = diagnostics(ready, uri, 1)
        assert [d["code"] for d in diags] == ["PLS001"], (name, diags)
        assert diags[0]["range"]["start"]["line"] == REGION_LINE, (name, diags)
        assert diags[0]["range"]["start"]["character"] == 2, (name, diags)


def test_lone_cr_document_accepts_edits_past_line_0(ready):
    uri = "file:///tmp/pallas-hardening-cr-edit.py"
    open_doc(ready, uri, KERNEL.replace("\n", "\r"))
    diagnostics(ready, uri, 1)
    # Insert a line above the region call: line 10 exists only if "\r" ends lines.
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": REGION_LINE, "character": 0},
                                      "end": {"line": REGION_LINE, "character": 0}},
                            "text": "  pass\r"}]})
    diags = diagnostics(ready, uri, 2)
    assert [d["range"]["start"]["line"] for d in diags] == [REGION_LINE + 1], diags
    doc = document(ready, uri)
    assert doc["version"] == 2
    assert doc["draft"].split("\r")[REGION_LINE] == "  pass"


def test_decreasing_version_is_rejected_and_logged(ready):
    uri = "file:///tmp/pallas-hardening-versions.py"
    open_doc(ready, uri, "x = 1\n", version=5)
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"text": "x = 2\n"}]})
    msg = ready.log_message("older than the document's version 5", type_=1)
    assert uri in msg["params"]["message"]
    doc = document(ready, uri)
    assert doc["draft"] == "x = 1\n" and doc["version"] == 5
    # The next real version is applied.
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 6},
        "contentChanges": [{"text": "x = 3\n"}]})
    still_serving(ready)
    doc = document(ready, uri)
    assert doc["draft"] == "x = 3\n" and doc["version"] == 6
