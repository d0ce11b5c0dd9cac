"""Scale benchmarks (reported, never asserted), each side by side in one run:

1. linearity: `pallas-lsp check` on generated modules of growing size
   (generate_module.py: ~1 PLS001 finding per 62 lines) -- wall time and
   peak RSS per size, and seconds per 10k lines (flat = linear). Also one
   file of 10,000 findings and one ~5 MB file.
2. check vs ruff: `pallas-lsp check` and `ruff check --no-cache --isolated`
   alternately on the same tree (default: JAX's repository at v0.10.2 if
   present: tests/ jax/ docs/ examples/ benchmarks/), N runs each, medians
   of wall and CPU time, peak RSS (/usr/bin/time -v) and the pair-by-pair
   ratios; and the same on a corpus where every file is a kernel (the
   generated module split into files). --bin may name the self-contained
   build (build/static/bin/pallas-lsp, the wheel's binary) or the
   development one (shared libLLVM/libMLIR: ~85 MB of RSS at start).
3. server: process start -> initialize reply (median of N), RSS per open
   10k-line document (open K copies, VmRSS delta / K), and RSS after 20,000
   open/close cycles of distinct documents.

usage: bench_scale.py --bin PATH [--ruff PATH] [--tree DIR] [--runs N] [--skip linear,ruff,server]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "test" / "lsp"))
from generate_module import generate  # noqa: E402


def timed(cmd, cwd=None):
    """(wall seconds, peak RSS KiB, CPU seconds) of one run, via /usr/bin/time -v."""
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    rss = 0
    cpu = 0.0
    for line in p.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1])
        elif "User time (seconds)" in line or "System time (seconds)" in line:
            cpu += float(line.split(":")[1])
    return wall, rss, cpu


def bench_linear(binary, tmp):
    out = []
    cases = [(f"{n // 1000}k lines", generate(n)[0]) for n in (5000, 10000, 20000, 50000)]
    # 10,000 findings: every block interpret=True, ~31 lines per block.
    cases.append(("10,000 findings", generate(10000 * 31 + 10, every=1)[0]))
    # ~5 MB: the 50k module repeated in size (no findings, every=10**9).
    five = generate(160000, every=10**9)[0]
    cases.append((f"{len(five) / 1e6:.1f} MB, no findings", five))
    for name, text in cases:
        path = tmp / "module.py"
        path.write_text(text)
        wall, rss, _ = timed([binary, "check", "--exit-zero", "--quiet", str(path)])
        lines = text.count("\n")
        out.append({"case": name, "lines": lines, "bytes": len(text), "wall_s": round(wall, 3),
                    "peak_rss_mb": round(rss / 1024, 1),
                    "s_per_10k_lines": round(wall / lines * 10000, 4)})
        print(f"  {name:24} {lines:8} lines  {wall:7.2f} s  {rss / 1024:7.1f} MB  "
              f"{wall / lines * 10000:.3f} s/10k lines", flush=True)
    return out


def side_by_side(binary, ruff, tree, runs, label, paths=None):
    """Alternating runs (A B A B ...) in `tree`; the ratios are taken pair by
    pair (a loaded machine drifts between pairs), then their median."""
    paths = paths or ["."]
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed([binary, "check", "--exit-zero", "--quiet", *paths], cwd=tree))
        theirs.append(timed([ruff, "check", "--no-cache", "--isolated", "--exit-zero", "--quiet", *paths], cwd=tree))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    r = {"corpus": label, "runs": runs,
         "pallas_wall_s": round(med(ours, 0), 3), "ruff_wall_s": round(med(theirs, 0), 3),
         "pallas_cpu_s": round(med(ours, 2), 3), "ruff_cpu_s": round(med(theirs, 2), 3),
         "pallas_peak_rss_mb": round(med(ours, 1) / 1024, 1), "ruff_peak_rss_mb": round(med(theirs, 1) / 1024, 1)}
    r["time_ratio_pallas_over_ruff"] = round(statistics.median(a[0] / b[0] for a, b in zip(ours, theirs)), 3)
    r["cpu_ratio_pallas_over_ruff"] = round(statistics.median(a[2] / b[2] for a, b in zip(ours, theirs)), 3)
    r["rss_ratio_pallas_over_ruff"] = round(r["pallas_peak_rss_mb"] / r["ruff_peak_rss_mb"], 3)
    print(f"  {label}: pallas {r['pallas_wall_s']} s ({r['pallas_cpu_s']} s CPU) / {r['pallas_peak_rss_mb']} MB, "
          f"ruff {r['ruff_wall_s']} s ({r['ruff_cpu_s']} s CPU) / {r['ruff_peak_rss_mb']} MB  "
          f"(time x{r['time_ratio_pallas_over_ruff']}, CPU x{r['cpu_ratio_pallas_over_ruff']}, "
          f"RSS x{r['rss_ratio_pallas_over_ruff']})", flush=True)
    return r


def kernel_corpus(tmp, files=200, lines=600):
    """Every file a kernel module (the scale module in 600-line files)."""
    d = tmp / "kernels"
    d.mkdir()
    text = generate(lines)[0]
    for i in range(files):
        (d / f"kernels_{i:04d}.py").write_text(text)
    return d


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bench_server(binary, runs, tmp):
    os.environ["PALLAS_LSP_BIN"] = binary
    import lspclient  # noqa: E402
    from lspclient import StdioServer  # noqa: E402
    starts = []
    for _ in range(runs):
        t = time.perf_counter()
        s = StdioServer("--log-level", "error")
        s.initialize()
        starts.append((time.perf_counter() - t) * 1000)
        s.shutdown_and_exit()
    res = {"initialize_median_ms": round(statistics.median(starts), 2),
           "initialize_min_ms": round(min(starts), 2)}
    print(f"  start -> initialize reply: median {res['initialize_median_ms']} ms (n={runs})", flush=True)

    text = generate(10000)[0]
    s = StdioServer("--log-level", "error")
    s.initialize()
    time.sleep(0.3)
    base = rss_kib(s.proc.pid)
    k = 5
    for i in range(k):
        uri = f"file://{tmp}/doc{i}.py"
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                           "version": 1, "text": text}})
        s.wait_for(lambda m, u=uri: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == u, timeout=120)
    per_doc = (rss_kib(s.proc.pid) - base) / k / 1024
    res["rss_per_open_10k_line_document_mb"] = round(per_doc, 1)
    print(f"  RSS per open 10k-line document: {per_doc:.1f} MB", flush=True)
    s.shutdown_and_exit()

    s = StdioServer("--log-level", "error")
    s.initialize()
    small = "import jax\nfrom jax.experimental import pallas as pl\n\ndef f(x):\n  return x\n"
    def cycles(n, start):
        for i in range(start, start + n):
            uri = f"file://{tmp}/cycle/doc{i}.py"
            s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                               "version": 1, "text": small}})
            s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        # A request after them: answered once they were all handled (in order).
        s.request("textDocument/hover", {"textDocument": {"uri": f"file://{tmp}/none.py"},
                                         "position": {"line": 0, "character": 0}})
        s.seen.clear()
    cycles(1000, 0)
    time.sleep(0.5)
    after1k = rss_kib(s.proc.pid)
    cycles(19000, 1000)
    time.sleep(0.5)
    after20k = rss_kib(s.proc.pid)
    res["rss_after_1k_open_close_mb"] = round(after1k / 1024, 1)
    res["rss_after_20k_open_close_mb"] = round(after20k / 1024, 1)
    print(f"  RSS after 1,000 open/close cycles: {after1k / 1024:.1f} MB; after 20,000: {after20k / 1024:.1f} MB",
          flush=True)
    s.shutdown_and_exit()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--ruff", default=str(ROOT / ".venv" / "bin" / "ruff"))
    ap.add_argument("--tree", default="/work/jax-v0.10.2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip", default="")
    ap.add_argument("--out")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    record = {"bin": a.bin}
    with tempfile.TemporaryDirectory(prefix="pallas-bench-scale-") as t:
        tmp = pathlib.Path(t)
        if "linear" not in skip:
            print("check on one generated module (linear: s/10k lines stays flat):")
            record["linear"] = bench_linear(a.bin, tmp)
        if "ruff" not in skip:
            print(f"check vs ruff, medians of {a.runs} alternating runs:")
            record["vs_ruff"] = []
            if os.path.isdir(a.tree):
                # JAX's repository: the folders issue 12 names (those present).
                parts = [d for d in ("tests", "jax", "docs", "examples", "benchmarks")
                         if os.path.isdir(os.path.join(a.tree, d))]
                record["vs_ruff"].append(side_by_side(a.bin, a.ruff, a.tree, a.runs,
                                                      f"{a.tree} ({' '.join(parts)})", parts or None))
            record["vs_ruff"].append(side_by_side(a.bin, a.ruff, kernel_corpus(tmp), a.runs,
                                                  "200 kernel files (600 lines each)"))
        if "server" not in skip:
            print("server:")
            record["server"] = bench_server(a.bin, max(a.runs, 10), tmp)
    out = a.out or str(ROOT / "bench" / "results" / f"scale-{time.strftime('%Y-%m-%dT%H-%M-%S')}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
    print(f"results: {out}")


if __name__ == "__main__":
    main()
