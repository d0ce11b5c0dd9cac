"""Readers while an analysis runs (issue 12, the scheduler): how long do
hover, codeLens, codeAction and textDocument/diagnostic wait when a large
analysis is under way? Reported, never asserted.

One `pallas-lsp serve --stdio` (push diagnostics), two documents:
  big.py    bench/scale's generated module (--lines, default 10,000 lines:
            ~325 kernels reaching inline_mgpu, ~160 findings)
  small.py  one kernel with one finding
Both are opened and their diagnostics awaited. Then, --rounds times: an edit
of big.py (a constant in a kernel near the middle), and at once each request
on small.py (unchanged: its answer is ready), then the same requests on big.py
at its new version (these must wait for the analysis of that version, and
only that one). Each reply's wait = send -> reply, milliseconds. Each round
ends when big.py's diagnostics for the edited version arrive.
documentSymbol, inlay hints and semantic tokens are not served by pallas-lsp.

usage: bench_readers.py [--bin PATH] [--lines N] [--rounds R] [--out FILE]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "lsp"))
sys.path.insert(0, os.path.join(ROOT, "bench", "scale"))

import lspclient  # noqa: E402
from lspclient import StdioServer  # noqa: E402
import generate_module  # noqa: E402

SMALL = '''import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)
  o_ref[...] = x_ref[...] + 1.0


def launch(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
'''
SMALL_LAUNCH_LINE = 15  # "  return pl.pallas_call(" (0-based)


def summary(ms):
    ms = sorted(ms)
    return {"n": len(ms), "median_ms": round(statistics.median(ms), 1),
            "max_ms": round(ms[-1], 1)}


def requests_for(uri, line, character):
    pos = {"line": line, "character": character}
    return [
        ("hover", "textDocument/hover", {"textDocument": {"uri": uri}, "position": pos}),
        ("codeLens", "textDocument/codeLens", {"textDocument": {"uri": uri}}),
        ("codeAction", "textDocument/codeAction",
         {"textDocument": {"uri": uri}, "range": {"start": pos, "end": pos},
          "context": {"diagnostics": []}}),
        ("diagnostic", "textDocument/diagnostic", {"textDocument": {"uri": uri}}),
    ]


def published(server, uri, version):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri and m["params"].get("version") == version)


def run(binary, lines, rounds):
    big_text, edit_line = generate_module.generate(lines)
    tmp = tempfile.mkdtemp(prefix="bench-readers-")
    big_uri = "file://" + os.path.join(tmp, "big.py")
    small_uri = "file://" + os.path.join(tmp, "small.py")
    lspclient.BIN = binary
    s = StdioServer("--log-level", "error")
    waits = {}
    try:
        s.initialize()
        for uri, text in ((big_uri, big_text), (small_uri, SMALL)):
            s.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": text}})
        s.wait_for(published(s, big_uri, 1), timeout=300)
        s.wait_for(published(s, small_uri, 1), timeout=300)
        # Every reader answered once at rest (first hovers compute their facts).
        for _, method, params in requests_for(small_uri, SMALL_LAUNCH_LINE, 13):
            s.request(method, params)
        line_text = big_text.splitlines()[edit_line + 3]  # "  acc = x * K.0 + y"
        for r in range(rounds):
            version = r + 2
            new_text = line_text.replace(" + y", f" + y * {r + 2}.0")
            s.notify("textDocument/didChange", {
                "textDocument": {"uri": big_uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": edit_line + 3, "character": 0},
                                              "end": {"line": edit_line + 3,
                                                      "character": len(line_text)}},
                                    "text": new_text}]})
            line_text = new_text
            sent = {}
            for who, uri, line, ch in (("small", small_uri, SMALL_LAUNCH_LINE, 13),
                                       ("big", big_uri, edit_line + 3, 4)):
                for name, method, params in requests_for(uri, line, ch):
                    sent[s.request_async(method, params)] = (f"{who}.{name}", time.perf_counter())
            pending = dict(sent)
            while pending:
                msg = s.wait_for(lambda m: m.get("id") in pending and "method" not in m,
                                 timeout=300)
                key, t0 = pending.pop(msg["id"])
                waits.setdefault(key, []).append((time.perf_counter() - t0) * 1000)
                s.seen.remove(msg)
            s.wait_for(published(s, big_uri, version), timeout=300)
        s.shutdown_and_exit()
    finally:
        s.kill()
    return {k: summary(v) for k, v in sorted(waits.items())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("PALLAS_LSP_BIN",
                                                    os.path.join(ROOT, "build", "server",
                                                                 "pallas-lsp")))
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    result = {"bin": a.bin, "lines": a.lines, "rounds": a.rounds,
              "waits": run(a.bin, a.lines, a.rounds)}
    text = json.dumps(result, indent=2)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
