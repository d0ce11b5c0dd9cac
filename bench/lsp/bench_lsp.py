"""LSP benchmarks (reported, never asserted):

1. startup: process start -> initialize response, `pallas-lsp serve --stdio`
   (target: under 50 ms), N runs, min/median/p95.
2. latency under load: two TCP clients on one `serve --listen`; client B
   floods the server (full-document edits of a large file plus pallas/mlir and
   pull-diagnostic requests, back to back) while client A measures the
   round trip of small requests: `pallas/test/sleep {ms:0}` (pure dispatch)
   and `textDocument/diagnostic` on a small document.

usage: bench_lsp.py [--bin PATH] [--runs N] [--seconds S] [--out FILE]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "lsp"))

import lspclient  # noqa: E402
from lspclient import TcpListener, frame  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def summary(ms):
    return {"n": len(ms), "min_ms": round(min(ms), 3), "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(pct(ms, 95), 3), "p99_ms": round(pct(ms, 99), 3),
            "max_ms": round(max(ms), 3)}


def read_one(stream):
    """Reads one framed message from a binary stream (blocking)."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError
        line = line.strip()
        if not line:
            if length is not None:
                break
            continue
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(stream.read(length))


def bench_startup(binary, runs):
    init = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen([binary, "serve", "--stdio", "--log-level", "error"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        p.stdin.write(init)
        p.stdin.flush()
        while True:
            msg = read_one(p.stdout)
            if msg.get("id") == 1:
                break
        times.append((time.perf_counter() - start) * 1000)
        p.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) +
                      frame({"jsonrpc": "2.0", "method": "exit"}))
        p.stdin.close()
        p.wait()
    return summary(times)


def bench_process_baseline(binary, runs):
    """`pallas-lsp --help`: process start, loading libLLVM/libMLIR and static
    initialisers, no server. The floor under the startup number."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([binary, "--help"], stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return summary(times)


def big_document(lines=3000):
    out = ["import jax", "from jax.experimental import pallas as pl", ""]
    for i in range(lines // 4):
        out += [f"def f{i}(x):", f"    y = x * {i} + 1  # é中😀", "    return y", ""]
    return "\n".join(out) + "\n"


def bench_load(binary, seconds):
    listener = TcpListener("--test-methods", "--log-level", "error")
    try:
        a, b = listener.connect(), listener.connect()
        a.initialize({"textDocument": {"diagnostic": {}}})
        b.initialize()
        small = "file:///bench/small.py"
        a.notify("textDocument/didOpen", {"textDocument": {
            "uri": small, "languageId": "python", "version": 1, "text": "x = 1\n"}})
        big = "file:///bench/big.py"
        text = big_document()
        b.notify("textDocument/didOpen", {"textDocument": {
            "uri": big, "languageId": "python", "version": 1, "text": text}})
        b.request("pallas/mlir", {"textDocument": {"uri": big}})

        stop = threading.Event()
        load_done = {"requests": 0, "edits": 0}

        def load():
            version = 1
            while not stop.is_set():
                # A burst: 8 incremental edits, then two requests, awaited.
                for _ in range(8):
                    version += 1
                    b.notify("textDocument/didChange", {
                        "textDocument": {"uri": big, "version": version},
                        "contentChanges": [{"range": {"start": {"line": 5, "character": 0},
                                                      "end": {"line": 5, "character": 0}},
                                            "text": "#"}]})
                    load_done["edits"] += 1
                r1 = b.request_async("pallas/mlir", {"textDocument": {"uri": big}})
                r2 = b.request_async("workspace/diagnostic", {"previousResultIds": []})
                b.response(r1, timeout=60)
                b.response(r2, timeout=60)
                load_done["requests"] += 2
                b.seen.clear()

        def measure(method, params, duration):
            out = []
            end = time.monotonic() + duration
            while time.monotonic() < end:
                t = time.perf_counter()
                r = a.request(method, params)
                out.append((time.perf_counter() - t) * 1000)
                assert "result" in r, r
                a.seen.clear()
            return out

        idle_dispatch = measure("pallas/test/sleep", {"ms": 0}, 1.0)
        idle_diag = measure("textDocument/diagnostic", {"textDocument": {"uri": small}}, 1.0)
        loader = threading.Thread(target=load, daemon=True)
        loader.start()
        time.sleep(0.3)
        loaded_dispatch = measure("pallas/test/sleep", {"ms": 0}, seconds / 2)
        loaded_diag = measure("textDocument/diagnostic", {"textDocument": {"uri": small}},
                              seconds / 2)
        stop.set()
        loader.join(timeout=60)
        return {
            "big_document_bytes": len(text.encode()),
            "load_client": {"edits": load_done["edits"], "requests": load_done["requests"],
                            "seconds": seconds},
            "idle": {"dispatch": summary(idle_dispatch), "diagnostic": summary(idle_diag)},
            "under_load": {"dispatch": summary(loaded_dispatch),
                           "diagnostic": summary(loaded_diag)},
        }
    finally:
        listener.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("PALLAS_LSP_BIN",
                                                    os.path.join(ROOT, "build", "server",
                                                                 "pallas-lsp")))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "lsp.json"))
    args = ap.parse_args()
    lspclient.BIN = args.bin
    results = {"binary": args.bin, "load_average": os.getloadavg(),
               "process_baseline_help": bench_process_baseline(args.bin, args.runs),
               "startup_to_initialize": bench_startup(args.bin, args.runs),
               "tcp_latency": bench_load(args.bin, args.seconds)}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
