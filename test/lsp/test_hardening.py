"""Adversarial input over the wire (issue 14): each case is one an attacker or
an unlucky client could send, and the server answers it and keeps serving."""

import json
import os
import socket
import subprocess
import threading

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
    # The launch line's hint ("selects interpret=True ...") is not a finding.
    return [d for d in msg["params"]["diagnostics"] if d.get("severity") != HINT]


HINT = 4  # LSP DiagnosticSeverity.Hint


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


# ---- 8. TCP beyond loopback: refused, or with a token --------------------------

def serve(*args, timeout=20):
    return subprocess.run([BIN, "serve", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def token_file(tmp_path, token="s3cret-token-0123456789", mode=0o600):
    path = tmp_path / "token"
    path.write_text(token + "\n")
    path.chmod(mode)
    return str(path)


def test_non_loopback_listen_is_refused_without_allow_remote(tmp_path):
    r = serve("--listen", "0.0.0.0:0")
    assert r.returncode == 2, r
    assert "not a loopback address" in r.stderr
    r = serve("--listen", "0.0.0.0:0", "--allow-remote")
    assert r.returncode == 2 and "needs --token-file" in r.stderr, r
    for mode, why in ((0o644, "readable or writable by others"), (0o620, "readable or writable")):
        r = serve("--listen", "0.0.0.0:0", "--allow-remote", "--token-file",
                  token_file(tmp_path, mode=mode))
        assert r.returncode == 2 and why in r.stderr, r
    r = serve("--listen", "0.0.0.0:0", "--allow-remote", "--token-file",
              token_file(tmp_path, token="short"))
    assert r.returncode == 2 and "at least 16 characters" in r.stderr, r
    link = tmp_path / "link"
    link.symlink_to(token_file(tmp_path))
    r = serve("--listen", "0.0.0.0:0", "--allow-remote", "--token-file", str(link))
    assert r.returncode == 2 and "symbolic link" in r.stderr, r
    r = serve("--stdio", "--token-file", token_file(tmp_path))
    assert r.returncode == 2 and "--listen only" in r.stderr, r


class RemoteListener(TcpListener):
    """serve --listen 0.0.0.0:0 --allow-remote --token-file F, reached on 127.0.0.1."""

    def __init__(self, token_path):
        self.proc = subprocess.Popen([BIN, "serve", "--listen", "0.0.0.0:0", "--allow-remote",
                                      "--token-file", token_path, "--test-methods",
                                      "--log-level", "debug"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        line = self.proc.stderr.readline().decode()
        assert "listening on 0.0.0.0:" in line, line
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.log = []
        threading.Thread(target=lambda: [self.log.append(l.decode()) for l in self.proc.stderr],
                         daemon=True).start()


def init_params(**options):
    return {"processId": None, "rootUri": None, "capabilities": {},
            "initializationOptions": options}


def refused(client, first):
    """Sends `first`; expects one error reply, then the connection closes."""
    client.send(first)
    reply = client.wait_for(lambda m: "error" in m)
    assert reply["error"]["code"] == -32803, reply
    client.drain_until_eof(timeout=10)
    assert client.eof
    return reply


def test_remote_tcp_requires_the_token(tmp_path):
    token = "s3cret-token-0123456789"
    listener = RemoteListener(token_file(tmp_path, token))
    try:
        good = listener.connect()
        good.initialize(initializationOptions={"authToken": token})
        reply = refused(listener.connect(), {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                             "params": init_params()})
        assert "authentication required" in reply["error"]["message"]
        reply = refused(listener.connect(), {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                             "params": init_params(authToken=token + "x")})
        assert "authentication failed" in reply["error"]["message"]
        refused(listener.connect(), {"jsonrpc": "2.0", "id": 2, "method": "pallas/test/sleep",
                                     "params": {"ms": 0}})
        refused(listener.connect(), {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        # The authenticated client was never disturbed.
        still_serving(good)
        another = listener.connect()
        another.initialize(initializationOptions={"authToken": token})
        still_serving(another)
    finally:
        assert listener.stop() == 0
    assert not any(token in line for line in listener.log), "the token reached the log"
