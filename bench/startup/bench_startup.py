"""Startup benchmark, dynamic vs self-contained binary (reported, never asserted).

Process start -> initialize reply of `pallas-lsp serve --stdio` (the same
measurement as bench/lsp, reused from there) for each binary given, N runs
each, interleaved so that machine load affects both alike; plus
`pallas-lsp --help` (process start and static initialisers, no server).
Target for the wheel's static binary: median <= 10 ms.

usage: bench_startup.py --bin NAME=PATH [--bin NAME=PATH ...] [--runs N] [--out FILE]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lsp"))

from bench_lsp import bench_process_baseline, bench_startup, summary  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "startup.json"))
    args = ap.parse_args()
    binaries = dict(b.split("=", 1) for b in args.bin)
    samples = {name: {"initialize": [], "help": []} for name in binaries}
    # One run of each binary per round: a burst of load hits both.
    for _ in range(args.runs):
        for name, path in binaries.items():
            samples[name]["initialize"].append(bench_startup(path, 1)["median_ms"])
            samples[name]["help"].append(bench_process_baseline(path, 1)["median_ms"])
    report = {name: {"path": binaries[name],
                     "size_bytes": os.path.getsize(binaries[name]),
                     "start_to_initialize": summary(s["initialize"]),
                     "start_to_exit_help": summary(s["help"])}
              for name, s in samples.items()}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    for name, r in report.items():
        i, h = r["start_to_initialize"], r["start_to_exit_help"]
        print(f"{name:8s} {r['size_bytes'] / 1e6:6.1f} MB  start->initialize median {i['median_ms']:.2f} ms "
              f"(min {i['min_ms']:.2f}, p95 {i['p95_ms']:.2f})  --help median {h['median_ms']:.2f} ms")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
