"""Do two `pallas-lsp` binaries report the same findings? A speed change to
`check` must not change what it reports: this runs `check --format json`
with each binary over the same corpora and compares the findings, the
launch path matrices, the errors and notes, byte for byte after parsing.

The corpora: JAX's repository at v0.10.2 (tests/, jax/, docs/, examples/,
benchmarks/; --tree) and every tracked .py file of this repository (run from
its root, so paths are the same for both binaries).

With --corpus DIR (repeatable) each DIR is compared too: a generated kernel
corpus (generate_kernels.py --out DIR), or --generated N writes one of N
files to a temporary folder and compares it.

usage: same_findings.py --before BIN --after BIN [--tree DIR] [--jobs N]
                        [--corpus DIR ...] [--generated N]
Exit 0 when every corpus matches, 1 otherwise (with the first differences).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(binary, args, cwd):
    p = subprocess.run([binary, "check", "--exit-zero", "--format", "json", *args], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = {"unparsable": p.stdout[-2000:]}
    # stderr carries the run's errors and notes (unreadable files, too deep).
    return report, sorted(p.stderr.splitlines()), p.returncode


def first_differences(a, b, limit=5):
    out = []
    fa, fb = a.get("findings", []), b.get("findings", [])
    sa = {json.dumps(f, sort_keys=True) for f in fa}
    sb = {json.dumps(f, sort_keys=True) for f in fb}
    for f in sorted(sa - sb)[:limit]:
        out.append("  only before: " + f[:400])
    for f in sorted(sb - sa)[:limit]:
        out.append("  only after:  " + f[:400])
    if a.get("launches") != b.get("launches"):
        out.append(f"  launch matrices differ ({len(a.get('launches', []))} vs {len(b.get('launches', []))})")
    if a.get("summary") != b.get("summary"):
        out.append(f"  summary {a.get('summary')} vs {b.get('summary')}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--tree", default="/work/jax-v0.10.2")
    ap.add_argument("--jobs", type=int, default=0, help="0: each binary's default")
    ap.add_argument("--corpus", action="append", default=[], help="another folder to compare on")
    ap.add_argument("--generated", type=int, default=0,
                    help="also compare on N generated kernel modules (generate_kernels.py)")
    a = ap.parse_args()
    # The corpora run in their own folders: make the binaries' paths absolute.
    a.before, a.after = (str(pathlib.Path(b).resolve()) for b in (a.before, a.after))
    jobs = ["--jobs", str(a.jobs)] if a.jobs else []
    corpora = []
    if os.path.isdir(a.tree):
        parts = [d for d in ("tests", "jax", "docs", "examples", "benchmarks") if (pathlib.Path(a.tree) / d).is_dir()]
        corpora.append((f"{a.tree} ({', '.join(parts)})", parts or ["."], a.tree))
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             check=True).stdout.split()
    corpora.append((f"this repository's {len(tracked)} tracked .py files", tracked, str(ROOT)))
    for folder in a.corpus:
        corpora.append((folder, ["."], str(pathlib.Path(folder).resolve())))
    scratch = tempfile.TemporaryDirectory(prefix="pallas-same-findings-")
    if a.generated:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        from generate_kernels import write_corpus
        files, lines = write_corpus(pathlib.Path(scratch.name), a.generated)
        corpora.append((f"{files} generated kernel modules ({lines} lines)", ["."], scratch.name))
    same = True
    for label, paths, cwd in corpora:
        before = run(a.before, jobs + paths, cwd)
        after = run(a.after, jobs + paths, cwd)
        summary = before[0].get("summary")
        if before == after:
            print(f"same: {label}: {summary}; {len(before[0].get('launches', []))} launches; "
                  f"{len(before[1])} stderr lines")
            continue
        same = False
        print(f"DIFFERENT: {label}")
        for line in first_differences(before[0], after[0]):
            print(line)
        if before[1] != after[1]:
            print(f"  stderr: {len(set(before[1]) - set(after[1]))} lines only before, "
                  f"{len(set(after[1]) - set(before[1]))} only after")
            for line in sorted(set(before[1]) ^ set(after[1]))[:5]:
                print("   ", line[:300])
        if before[2] != after[2]:
            print(f"  exit {before[2]} vs {after[2]}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
