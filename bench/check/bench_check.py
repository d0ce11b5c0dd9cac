"""Throughput of `pallas-lsp check` next to `ruff check`, on the same files,
in the same run: lines per second (and files per second) for each.

The corpus is a copy of the Python standard library of the interpreter that
runs this script (about 700k lines of real Python; copied so that neither
tool's exclusions or .gitignore handling drops files), plus the Pallas kernel
fixtures of the test suite, replicated, so that the analysis has kernels to
analyse as well as plain Python to skip quickly.

With --generated-kernels N the corpus is instead N generated kernel modules
(generate_kernels.py: every file a Pallas Mosaic GPU kernel module, one in
eight with a finding), the case where no file can be skipped.

With --parse-floor PATH (bench_parse_floor, built in bench/check/) a third
row times tree-sitter parsing the same corpus on the same number of threads
and nothing else: the least a tree-sitter-based `check` can take there, so
the gap between `check` and ruff splits into what the analysis costs and
what the parser alone costs.

Usage: bench_check.py --bin PATH --ruff PATH [--repeat N] [--jobs N] [--out FILE]
                      [--generated-kernels N] [--parse-floor PATH]
Prints a table and writes a JSON record. Never asserts: targets are read
from the numbers, not enforced here.
"""
import argparse
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time


def build_corpus(dest: pathlib.Path, fixtures: list[pathlib.Path], copies: int,
                 with_stdlib: bool) -> tuple[int, int]:
    stdlib = pathlib.Path(sysconfig.get_paths()["stdlib"])
    files = lines = 0
    for src in sorted(stdlib.rglob("*.py")) if with_stdlib else []:
        rel = src.relative_to(stdlib)
        # Skip what either tool would skip on its own, so both see the same files.
        if any(p in ("site-packages", "__pycache__") or p.startswith(".") for p in rel.parts):
            continue
        if any(p in ("build", "dist", "venv", "node_modules") for p in rel.parts):
            continue
        try:
            data = src.read_bytes()
        except OSError:
            continue
        target = dest / "stdlib" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files += 1
        lines += data.count(b"\n")
    for i in range(copies):
        for fixture in fixtures:
            data = fixture.read_bytes()
            target = dest / "kernels" / f"copy{i:03d}" / fixture.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files += 1
            lines += data.count(b"\n")
    return files, lines


def timed(cmd: list[str], cwd: pathlib.Path) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    return elapsed, proc.returncode, proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--ruff", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--kernel-copies", type=int, default=50)
    ap.add_argument("--kernels-only", action="store_true",
                    help="leave the standard library out: only the replicated kernel fixtures")
    ap.add_argument("--generated-kernels", type=int, default=0,
                    help="instead: N generated kernel modules (generate_kernels.py), nothing else")
    ap.add_argument("--out")
    ap.add_argument("--parse-floor", help="bench_parse_floor binary: time tree-sitter parsing alone")
    args = ap.parse_args()
    # The tools run inside the corpus folder: make their paths absolute.
    args.bin = str(pathlib.Path(args.bin).resolve())
    args.ruff = str(pathlib.Path(args.ruff).resolve())

    root = pathlib.Path(__file__).resolve().parents[2]
    fixtures = sorted((root / "test" / "oracle" / "fixtures").glob("*.py"))
    fixtures += sorted((root / "test" / "check" / "fixtures").glob("*.py"))
    with tempfile.TemporaryDirectory(prefix="pallas-check-bench-") as tmp:
        corpus = pathlib.Path(tmp) / "corpus"
        if args.generated_kernels:
            sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
            from generate_kernels import write_corpus
            files, lines = write_corpus(corpus, args.generated_kernels)
        else:
            files, lines = build_corpus(corpus, fixtures, args.kernel_copies, not args.kernels_only)
        tools = {
            # The default (text) output, like ruff's: `--format json` also
            # judges every launch on all four paths (its "launches" matrix).
            "pallas-lsp check": [args.bin, "check", "--no-config", "--exit-zero", "--quiet",
                                 "--jobs", str(args.jobs), "."],
            # --isolated: no configuration; ruff's default rule set; no cache so
            # every run does the full work, like pallas-lsp (which has no cache).
            "ruff check": [args.ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--quiet", "."],
        }
        if args.parse_floor:
            tools["tree-sitter parse only"] = [str(pathlib.Path(args.parse_floor).resolve()),
                                               "--jobs", str(args.jobs), "."]
        results = {}
        for name, cmd in tools.items():
            timed(cmd, corpus)  # warm the page cache
            times = []
            failure = None
            for _ in range(args.repeat):
                elapsed, rc, output = timed(cmd, corpus)
                if rc not in (0, 1):  # 1 can only mean findings despite --exit-zero; 2 is an error
                    failure = f"exit {rc}: {output[-800:]}"
                    break
                times.append(elapsed)
            if failure:
                # Report it and go on: the other tool's numbers are still worth having.
                print(f"{name} failed ({failure})", file=sys.stderr)
                results[name] = {"failed": failure, "command": " ".join(cmd)}
                continue
            best, median = min(times), statistics.median(times)
            results[name] = {
                "seconds_best": round(best, 4),
                "seconds_median": round(median, 4),
                "lines_per_second": round(lines / median),
                "files_per_second": round(files / median),
                "command": " ".join(cmd),
            }
        # How many findings pallas-lsp reported on the corpus (context for
        # the numbers: a placeholder analysis that finds nothing is fast).
        _, _, output = timed(tools["pallas-lsp check"][:-1] + ["--format", "json", "."], corpus)
        try:  # fails (None) when pallas-lsp failed
            summary = json.loads(output[: output.rindex("}") + 1])["summary"]
        except (ValueError, KeyError):
            summary = None

    record = {
        "benchmark": "check-throughput",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "jobs": args.jobs,
        "corpus": {"files": files, "lines": lines, "kernel_fixtures": len(fixtures), "kernel_copies": args.kernel_copies,
                   "stdlib": not args.kernels_only, "generated_kernels": args.generated_kernels},
        "pallas_lsp_summary": summary,
        "results": results,
    }
    if all("lines_per_second" in r for r in results.values()):
        record["ratio_pallas_over_ruff"] = round(results["pallas-lsp check"]["lines_per_second"]
                                                 / results["ruff check"]["lines_per_second"], 3)
    print(f"corpus: {files} files, {lines} lines; jobs={args.jobs}; repeat={args.repeat} (median shown)")
    print(f"{'tool':<24} {'seconds':>9} {'lines/s':>12} {'files/s':>9}")
    for name, r in results.items():
        if "failed" in r:
            print(f"{name:<24} FAILED ({r['failed'].splitlines()[0]})")
        else:
            print(f"{name:<24} {r['seconds_median']:>9.3f} {r['lines_per_second']:>12,} {r['files_per_second']:>9,}")
    if "ratio_pallas_over_ruff" in record:
        print(f"pallas-lsp / ruff (lines/s): {record['ratio_pallas_over_ruff']}")
    floor = results.get("tree-sitter parse only", {})
    if "seconds_median" in floor and "seconds_median" in results["ruff check"]:
        record["parse_floor_over_ruff_seconds"] = round(
            floor["seconds_median"] / results["ruff check"]["seconds_median"], 3)
        print(f"tree-sitter parse alone / ruff's whole run (seconds): {record['parse_floor_over_ruff_seconds']}")
    if summary is not None:
        print(f"pallas-lsp findings on the corpus: {summary}")
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
