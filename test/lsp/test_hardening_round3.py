"""Hardening, round 3 (issue 34): what a hostile peer, file or environment
did to the server, each through the real binary over pipes or TCP. Every
case once aborted, hung or flooded the server; now it is answered and the
server keeps serving. Numbers are generous bounds, never timings."""

import json
import os
import random
import re
import resource
import socket
import subprocess
import threading
import time

import pytest

from lspclient import BIN, TIMEOUT, Client, Reader, StdioServer, TcpListener, frame
from test_hardening import (KERNEL, REGION_LINE, RemoteListener, diagnostics, document, open_doc,
                            refused, still_serving, token_file)

TOKEN = "s3cret-token-0123456789"


def init_with_token(client, token=TOKEN):
    return client.initialize(initializationOptions={"authToken": token})


# ---- 1. a second `initialized` ----------------------------------------------------

def test_a_second_initialized_is_ignored(ready):
    # It started a second environment worker over the running one: SIGABRT.
    ready.notify("initialized", {})
    ready.notify("initialized", {})
    still_serving(ready)
    uri = "file:///tmp/pallas-round3-initialized.py"
    open_doc(ready, uri, KERNEL)
    assert [d["range"]["start"]["line"] for d in diagnostics(ready, uri, 1)] == [REGION_LINE]


def test_a_second_initialized_over_tcp_leaves_the_other_sessions_alone():
    listener = TcpListener("--test-methods")
    try:
        a, b = listener.connect(), listener.connect()
        a.initialize()
        b.initialize()
        a.notify("initialized", {})
        still_serving(a)
        still_serving(b)
    finally:
        assert listener.stop() == 0


# ---- 2. a pyproject.toml nested 100,000 deep --------------------------------------

DEEP_KEY = "a." * 100_000 + "a = 1\n"
DEEP_HEADER = "[" + "a." * 100_000 + "a]\nb = 1\n"


@pytest.mark.parametrize("toml", [DEEP_KEY, DEEP_HEADER], ids=["dotted-key", "table-header"])
def test_a_deep_pyproject_is_refused_and_the_defaults_apply(tmp_path, toml):
    # Read by the findings pipeline at the first didOpen: SIGSEGV in toml++.
    (tmp_path / "pyproject.toml").write_text(toml)
    s = StdioServer("--test-methods", "--debounce-ms", "5")
    try:
        s.initialize(rootUri=tmp_path.as_uri())
        uri = (tmp_path / "k.py").as_uri()
        open_doc(s, uri, KERNEL)
        assert [d["range"]["start"]["line"] for d in diagnostics(s, uri, 1)] == [REGION_LINE]
        msg = s.log_message("nested deeper than 64 levels")["params"]["message"]
        assert "pyproject.toml:1:" in msg and "using the default pallas-lsp settings" in msg, msg
        still_serving(s)
    finally:
        s.kill()


# ---- 6. exponential glob in per-file-ignores ---------------------------------------

def test_a_pathological_per_file_ignores_pattern_does_not_stop_diagnostics(tmp_path):
    # The backtracking matcher never finished: the file's diagnostics never came.
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pallas-lsp]\nper-file-ignores = { "%s" = ["PLS002"] }\n' % ("*a" * 14 + "*b"))
    s = StdioServer("--test-methods", "--debounce-ms", "5")
    try:
        s.initialize(rootUri=tmp_path.as_uri())
        uri = (tmp_path / ("a" * 60 + ".py")).as_uri()
        open_doc(s, uri, KERNEL)
        assert [d["range"]["start"]["line"] for d in diagnostics(s, uri, 1)] == [REGION_LINE]
        still_serving(s)
    finally:
        s.kill()


# ---- 8. a document over the analysis budget --------------------------------------

def big_module(megabytes):
    """A kernel module padded with a generated table to `megabytes` MB."""
    row = "    " + ", ".join("%d.5" % i for i in range(200)) + ",\n"
    rows = (megabytes * 1_000_000) // len(row) + 1
    return KERNEL + "\nTABLE = (\n" + row * rows + ")\n"


def test_a_document_over_the_budget_gets_one_finding_and_costs_nothing():
    # A 20 MB didOpen made the server abort ("LLVM ERROR: out of memory")
    # with every session in it; 6 MB is over the 4 MiB default all the same.
    s = StdioServer("--test-methods", "--debounce-ms", "5")
    try:
        s.initialize()
        uri = "file:///tmp/pallas-round3-big.py"
        open_doc(s, uri, big_module(6))
        diags = diagnostics(s, uri, 1)
        assert [(d["code"], d["range"]["start"]["line"]) for d in diags] == [("PLS010", 0)], diags
        assert "skipped: too large to analyse" in diags[0]["message"]
        assert "> 4 MiB limit" in diags[0]["message"], diags[0]["message"]
        # Edited down to the kernel alone: analysed again, as usual.
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": KERNEL}]})
        assert [d["range"]["start"]["line"] for d in diagnostics(s, uri, 2)] == [REGION_LINE]
        # And back over it: the finding again, and the Project holds nothing.
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                            "contentChanges": [{"text": big_module(6)}]})
        assert [d["code"] for d in diagnostics(s, uri, 3)] == ["PLS010"]
        assert document(s, uri)["project"] == ""
        still_serving(s)
    finally:
        s.kill()


def test_the_token_budget_applies_too():
    s = StdioServer("--test-methods", "--debounce-ms", "5",
                    extra_env={"PALLAS_LSP_ANALYSIS_MAX_TOKENS": "5000"})
    try:
        s.initialize()
        uri = "file:///tmp/pallas-round3-tokens.py"
        open_doc(s, uri, KERNEL + "T = [" + "1," * 6000 + "]\n")
        diags = diagnostics(s, uri, 1)
        assert [d["code"] for d in diags] == ["PLS010"], diags
        assert "more than 5000 syntax tokens" in diags[0]["message"]
    finally:
        s.kill()


# ---- 9, 10 and the connection limit: TCP ------------------------------------------

def test_an_unauthenticated_peer_may_send_at_most_16_kib(tmp_path):
    # Each such peer made the server buffer up to 64 MiB.
    listener = RemoteListener(token_file(tmp_path, TOKEN))
    try:
        good = listener.connect()
        init_with_token(good)
        peer = listener.connect()
        peer.send_raw(b"Content-Length: 60000000\r\n\r\n" + b"x" * (100 * 1024))
        reply = peer.wait_for(lambda m: "error" in m, timeout=15)
        assert reply["error"]["code"] == -32803
        assert "more than 16 KiB arrived before an initialize" in reply["error"]["message"]
        peer.drain_until_eof(timeout=10)
        assert peer.eof
        still_serving(good)
        # An initialize with the token, whatever follows it in the same
        # write, is read whole.
        late = listener.connect()
        params = {"processId": None, "rootUri": None, "capabilities": {},
                  "initializationOptions": {"authToken": TOKEN}}
        late.send_raw(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
                      + frame({"jsonrpc": "2.0", "id": 2, "method": "pallas/test/sleep",
                               "params": {"ms": 0, "pad": "p" * 100_000}}))
        assert "result" in late.response(1)
        assert late.response(2)["result"] == {"slept": 0}
    finally:
        assert listener.stop() == 0


def test_a_peer_that_does_not_authenticate_is_closed_after_5_s(tmp_path):
    listener = RemoteListener(token_file(tmp_path, TOKEN))
    try:
        silent = listener.connect()
        slow = listener.connect()
        slow.send_raw(b"Con")  # a header byte now and then
        for peer in (silent, slow):
            reply = peer.wait_for(lambda m: "error" in m, timeout=15)
            assert reply["error"]["code"] == -32803
            assert "within 5 s of connecting" in reply["error"]["message"], reply
            peer.drain_until_eof(timeout=10)
            assert peer.eof
        good = listener.connect()
        init_with_token(good)
        time.sleep(6)  # past the deadline: an authenticated peer is not touched
        still_serving(good)
    finally:
        assert listener.stop() == 0


def test_connections_past_the_limit_are_refused_with_a_message():
    listener = TcpListener("--test-methods", "--max-connections", "2")
    try:
        a, b = listener.connect(), listener.connect()
        a.initialize()
        b.initialize()
        c = listener.connect()
        reply = c.wait_for(lambda m: "error" in m, timeout=15)
        assert "too many connections" in reply["error"]["message"]
        c.drain_until_eof(timeout=10)
        a.shutdown_and_exit()
        a.drain_until_eof(timeout=10)
        # The freed place is taken by the next client.
        for _ in range(50):
            d = listener.connect()
            d.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"processId": None, "rootUri": None, "capabilities": {}}})
            first = d.wait_for(lambda m: "result" in m or "error" in m, timeout=15)
            if "result" in first:
                break
            time.sleep(0.1)  # the ended session was not dropped yet
        assert "result" in first, first
        still_serving(b)
    finally:
        assert listener.stop() == 0


# ---- 4. the accept loop after EMFILE -----------------------------------------------

def test_the_listener_accepts_again_after_running_out_of_descriptors():
    # One accept() error (EMFILE) ended accepting for good: new clients
    # connected and waited forever.
    def few_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
    proc = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--test-methods",
                             "--max-connections", "1000"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=few_descriptors)
    try:
        line = proc.stderr.readline().decode()
        assert "listening on 127.0.0.1:" in line, line
        port = int(line.strip().rsplit(":", 1)[1])
        log = []
        threading.Thread(target=lambda: [log.append(l.decode()) for l in proc.stderr],
                         daemon=True).start()
        burst = [socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) for _ in range(80)]
        deadline = time.monotonic() + 20
        while not any("accepting a connection failed" in l for l in log):
            assert time.monotonic() < deadline, "never ran out of descriptors: " + "".join(log[-5:])
            time.sleep(0.05)
        for sock in burst:
            sock.close()
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        sock.settimeout(None)
        client = Client(sock.sendall, sock.recv, lambda: sock.shutdown(socket.SHUT_WR))
        client.initialize()
        still_serving(client)
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)


# ---- 11. a multi-cursor didChange ----------------------------------------------------

LINES = 60_000


@pytest.mark.parametrize("order", ["bottom-up", "top-down", "shuffled"])
def test_a_didchange_of_60000_cursors_is_applied_in_linear_time(ready, order):
    # Each change used to scan the text from its start and move its tail:
    # 16,000 cursors in 16,000 lines held the ordered queue 5-6 s; 60,000 in
    # 60,000 lines, minutes. Inserting at column 0 keeps every line's number,
    # so the order of the changes is free.
    uri = "file:///tmp/pallas-round3-cursors.py"
    text = "".join("# line %d\n" % i for i in range(LINES))
    open_doc(ready, uri, text)
    lines = list(range(LINES))
    if order == "bottom-up":
        lines.reverse()
    elif order == "shuffled":
        random.Random(34).shuffle(lines)
    changes = [{"range": {"start": {"line": l, "character": 0}, "end": {"line": l, "character": 0}},
                "text": "x"} for l in lines]
    ready.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": changes})
    # Behind the edit on the ordered queue: answered once it is applied.
    # Under AddressSanitizer on a busy machine the server is several times
    # slower (the linear-time property is what the test checks, not speed).
    wait = 120.0 if os.environ.get("PALLAS_LSP_SANITIZED") else 20.0
    rid = ready.request_async("pallas/test/documentText", {"textDocument": {"uri": uri}})
    doc = ready.response(rid, timeout=wait)["result"]
    assert doc["version"] == 2
    assert doc["draft"] == "".join("x# line %d\n" % i for i in range(LINES))
    assert doc["project"] == doc["draft"]


def test_many_changes_with_line_breaks_and_emoji_match_one_by_one_application(ready):
    # UTF-16 positions after astral characters, "\r\n" made and split by
    # edits, lines joined: the chunked text agrees with applying the changes
    # to a plain string one by one (the reference below).
    rng = random.Random(3434)
    uri = "file:///tmp/pallas-round3-mixed.py"
    text = "".join(rng.choice(["a = 1", "é = '😀'", "", "x\r", "\ty = [1, 2]"]) + "\n"
                   for _ in range(3000))
    open_doc(ready, uri, text)

    def lines_of(t):
        out, start, i = [], 0, 0
        while i < len(t):
            if t[i] in "\r\n":
                end = i + (2 if t[i] == "\r" and t[i + 1:i + 2] == "\n" else 1)
                out.append((start, i))
                start = i = end
                continue
            i += 1
        out.append((start, len(t)))
        return out

    def offset(t, line, units):
        start, end = lines_of(t)[line]
        i, seen = start, 0
        while i < end and seen < units:
            seen += 2 if ord(t[i]) > 0xFFFF else 1
            i += 1
        return i

    changes = []
    for _ in range(1500):
        n = len(lines_of(text))
        l1 = rng.randrange(n)
        l2 = min(n - 1, l1 + rng.choice([0, 0, 1, 2]))
        c1, c2 = rng.randrange(6), rng.randrange(6)
        a, b = offset(text, l1, c1), offset(text, l2, c2)
        if b < a:
            continue
        units = lambda t, s, e: sum(2 if ord(ch) > 0xFFFF else 1 for ch in t[s:e])
        # Positions as the client computes them: UTF-16 columns within the line.
        start = {"line": l1, "character": units(text, lines_of(text)[l1][0], a)}
        end = {"line": l2, "character": units(text, lines_of(text)[l2][0], b)}
        new = rng.choice(["", "z", "\n", "\r", "\r\n", "😀", "ß\n", "q = 2\r\n"])
        changes.append({"range": {"start": start, "end": end}, "text": new})
        text = text[:a] + new + text[b:]
    ready.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": changes})
    doc = document(ready, uri)
    assert doc["version"] == 2
    assert doc["draft"] == text
    # The analysis reads a lone "\r" as "\n" (offsets kept).
    assert doc["project"] == re.sub("\r(?!\n)", "\n", text)


# ---- 12. flow control on notifications ------------------------------------------------

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def test_notifications_behind_a_busy_queue_are_bounded_in_memory(tmp_path):
    # 3,000 full-text didChanges of 200 KB grew memory by ~550 MB: nothing
    # limited the notifications waiting on the ordered queue.
    proc = subprocess.Popen([BIN, "serve", "--stdio", "--test-methods", "--log-level", "error"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    reader = Reader(proc.stdout.read1)
    reader.start()
    uri = (tmp_path / "m.py").as_uri()
    body = "# " + "y" * (200 * 1024) + "\n"
    count = 3000  # as in the issue: 600 MB sent

    def send(obj):
        proc.stdin.write(frame(obj))
        proc.stdin.flush()
    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                          "text": "x = 1\n"}}})
        send({"jsonrpc": "2.0", "id": 1, "method": "pallas/test/sleep", "params": {"ms": 0}})
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = reader.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            if m and m.get("id") == 1:
                break
        base = rss_mb(proc.pid)
        send({"jsonrpc": "2.0", "id": 2, "method": "pallas/test/holdQueue",
              "params": {"ms": 15000}})
        # The changes differ only in their version: framed from two halves,
        # so the writer is far faster than the server could drain them.
        head = ('{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":'
                '{"uri":%s,"version":' % json.dumps(uri)).encode()
        tail = ('},"contentChanges":[{"text":%s}]}}' % json.dumps(body)).encode()

        def write():
            try:
                for v in range(2, count + 2):
                    proc.stdin.write(frame(head + str(v).encode() + tail))
                proc.stdin.flush()
                send({"jsonrpc": "2.0", "id": 3, "method": "pallas/test/documentText",
                      "params": {"textDocument": {"uri": uri}}})
            except (BrokenPipeError, ValueError):
                pass
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        peak = base
        for _ in range(120):  # while the queue is held (15 s)
            time.sleep(0.1)
            peak = max(peak, rss_mb(proc.pid))
        # Everything is applied in the end, in order.
        deadline = time.monotonic() + 120
        last = None
        while last is None or last.get("id") != 3:
            last = reader.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            assert last is not None, "the server closed its output"
            peak = max(peak, rss_mb(proc.pid))
        assert last["result"]["version"] == count + 1
        grown = peak - base
        # About 32 MiB of messages may wait (40 MB measured); unbounded, the
        # 600 MB sent were held as they arrived (186 MB measured, with the
        # queue moving: the binary before issue 34 has no holdQueue).
        # Under AddressSanitizer (80-sanitizers sets PALLAS_LSP_SANITIZED)
        # every allocation carries redzones and freed memory waits in the
        # quarantine: the same bound, scaled (122 MB measured with a 32 MB
        # quarantine; unbounded would still be far over).
        limit = 300 if os.environ.get("PALLAS_LSP_SANITIZED") else 100
        assert grown < limit, f"memory grew by {grown:.0f} MB while the queue was held"
    finally:
        proc.kill()
        proc.wait()


# ---- 13. runner.timeoutSeconds ---------------------------------------------------------

@pytest.mark.parametrize("value", [1e10, 0.0001, -5, "300"])
def test_an_out_of_range_runner_timeout_setting_is_refused(value):
    s = StdioServer("--test-methods")
    try:
        s.initialize(initializationOptions={"runner": {"timeoutSeconds": value}})
        msg = s.log_message("pallasLsp.runner.timeoutSeconds must be")["params"]["message"]
        assert "keeping 300" in msg, msg
        still_serving(s)
    finally:
        s.kill()


# ---- 14. conflicting Content-Length headers ---------------------------------------------

def test_conflicting_content_lengths_do_not_swallow_the_next_request(ready):
    n = len(ready.seen)
    ready.send_raw(b"Content-Length: 2\r\nContent-Length: 7\r\n\r\n{}" +
                   frame({"jsonrpc": "2.0", "id": 42, "method": "pallas/test/sleep",
                          "params": {"ms": 0}}))
    assert ready.response(42)["result"] == {"slept": 0}
    err = ready.error_with_null_id(n)
    assert "conflicting Content-Length" in err["error"]["message"]
    still_serving(ready)
