"""The editor's index of callers (docs/analysis.md 8.34), reported, never
asserted: how long the background build takes after `initialized` on a
workspace folder (until the server logs "caller index built"), how many
files it keeps, and the server's resident memory after it.

usage: bench_caller_index.py [--workspace DIR] [--runs N] [--out FILE]
(the binary: PALLAS_LSP_BIN, else build/server/pallas-lsp)
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "lsp"))

from lspclient import StdioServer  # noqa: E402


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def one_run(workspace):
    s = StdioServer()
    try:
        uri = Path(workspace).resolve().as_uri()
        s.initialize(rootUri=uri, workspaceFolders=[{"uri": uri, "name": "ws"}])
        start = time.monotonic()
        msg = s.wait_for(lambda m: m.get("method") == "window/logMessage"
                         and "caller index built" in m["params"]["message"], timeout=600)
        seconds = time.monotonic() - start
        kept = int(msg["params"]["message"].split(": ")[1].split()[0])
        return seconds, kept, rss_kib(s.proc.pid)
    finally:
        s.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", default="/work/jax-v0.10.2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "caller_index.json"))
    args = ap.parse_args()
    files = sum(1 for p in Path(args.workspace).rglob("*.py"))
    runs = [one_run(args.workspace) for _ in range(args.runs)]
    times = [r[0] for r in runs]
    report = {"workspace": args.workspace, "python_files": files, "callers_kept": runs[0][1],
              "build_seconds": {"median": statistics.median(times), "min": min(times),
                                "max": max(times), "runs": len(times)},
              "rss_kib_after": statistics.median(r[2] for r in runs)}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
