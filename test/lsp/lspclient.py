"""A minimal LSP client for transcript tests: drives the real pallas-lsp
binary over pipes (or TCP), sends scripted messages (well-formed or raw
bytes), and collects every message the server writes."""

import json
import os
import queue
import socket
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("PALLAS_LSP_BIN") or os.path.join(ROOT, "build", "server", "pallas-lsp")
TIMEOUT = 20.0


def frame(obj_or_bytes):
    body = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Reader(threading.Thread):
    """Parses Content-Length frames from a byte stream into a queue."""

    def __init__(self, read):
        super().__init__(daemon=True)
        self.read = read
        self.messages = queue.Queue()

    def run(self):
        buf = b""
        while True:
            try:
                chunk = self.read(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.messages.put(None)
                return
            buf += chunk
            while True:
                head, sep, rest = buf.partition(b"\r\n\r\n")
                if not sep:
                    break
                length = None
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                assert length is not None, head
                if len(rest) < length:
                    break
                self.messages.put(json.loads(rest[:length]))
                buf = rest[length:]


class Client:
    def __init__(self, write, read, close):
        self._write = write
        self._close = close
        self.reader = Reader(read)
        self.reader.start()
        self.seen = []  # every message received, in order
        self.eof = False
        self.next_id = 1
        self.auto_reply = {}  # method -> result for server->client requests

    # ---- sending
    def send_raw(self, data: bytes):
        self._write(data)

    def send(self, obj):
        self._write(frame(obj))

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def request_async(self, method, params=None, id=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def request(self, method, params=None, id=None):
        id = self.request_async(method, params, id)
        return self.response(id)

    # ---- receiving
    def _next(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no message from the server in time")
        try:
            msg = self.reader.messages.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError("no message from the server in time; seen: %s" % self.seen[-5:])
        if msg is None:
            self.eof = True
            raise EOFError("server closed its output; seen: %s" % self.seen[-5:])
        self.seen.append(msg)
        if "method" in msg and "id" in msg and msg["method"] in self.auto_reply:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": self.auto_reply[msg["method"]]})
        return msg

    def wait_for(self, predicate, timeout=TIMEOUT):
        """Returns the first message (already seen or new) matching predicate."""
        for msg in self.seen:
            if predicate(msg):
                return msg
        deadline = time.monotonic() + timeout
        while True:
            msg = self._next(deadline)
            if predicate(msg):
                return msg

    def response(self, id, timeout=TIMEOUT):
        return self.wait_for(lambda m: m.get("id") == id and "method" not in m, timeout)

    def first_after(self, after_count, predicate, timeout=TIMEOUT):
        """The first message matching predicate among those received after the
        first `after_count` messages."""
        deadline = time.monotonic() + timeout
        idx = after_count
        while True:
            while idx < len(self.seen):
                m = self.seen[idx]
                idx += 1
                if predicate(m):
                    return m
            self._next(deadline)

    def error_with_null_id(self, after_count, timeout=TIMEOUT):
        """The first error reply with id null received after `after_count` messages."""
        return self.first_after(
            after_count, lambda m: "error" in m and m.get("id") is None and "method" not in m,
            timeout)

    def log_message(self, needle, type_=None, timeout=TIMEOUT):
        def match(m):
            return (m.get("method") == "window/logMessage" and needle in m["params"]["message"]
                    and (type_ is None or m["params"]["type"] == type_))
        return self.wait_for(match, timeout)

    def drain_until_eof(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        try:
            while True:
                self._next(deadline)
        except EOFError:
            pass

    # ---- LSP helpers
    def initialize(self, capabilities=None, **extra):
        params = {"processId": os.getpid(), "rootUri": None,
                  "capabilities": capabilities or {}}
        params.update(extra)
        resp = self.request("initialize", params)
        assert "result" in resp, resp
        self.notify("initialized", {})
        return resp["result"]

    def shutdown_and_exit(self):
        resp = self.request("shutdown")
        assert resp["result"] is None, resp
        self.notify("exit")

    def close(self):
        self._close()


class StdioServer(Client):
    def __init__(self, *args, extra_env=None):
        env = dict(os.environ)
        env.update(extra_env or {})
        self.proc = subprocess.Popen([BIN, "serve", "--stdio", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.stderr_lines = []
        self._err = threading.Thread(target=self._pump_stderr, daemon=True)
        self._err.start()

        def write(data):
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

        super().__init__(write, self.proc.stdout.read1, self.proc.stdin.close)

    def _pump_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.decode(errors="replace"))

    def stderr(self):
        self._err.join(timeout=5)
        return "".join(self.stderr_lines)

    def wait(self, timeout=TIMEOUT):
        return self.proc.wait(timeout=timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class TcpListener:
    """pallas-lsp serve --listen 127.0.0.1:0; the port is read from stderr."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        line = self.proc.stderr.readline().decode()
        assert "listening on 127.0.0.1:" in line, line
        self.port = int(line.strip().rsplit(":", 1)[1])
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def connect(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def close():
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        return Client(sock.sendall, sock.recv, close)

    def stop(self):
        self.proc.terminate()
        return self.proc.wait(timeout=TIMEOUT)
