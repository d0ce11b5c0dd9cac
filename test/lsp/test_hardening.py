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
