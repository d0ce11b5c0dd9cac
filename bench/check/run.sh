#!/usr/bin/env bash
# `pallas-lsp check` throughput next to `ruff check` on the same corpus, in the
# same run. Reports; never fails on the numbers.
#   bench/check/run.sh [BUILD_DIR] [extra bench_check.py options]
#   bench/check/run.sh build --generated-kernels 200   (every file a kernel module)
# Writes bench/results/check-throughput-<date>.json. The wheel's binary is
# the static one (cmake --build build --target pallas-lsp-static;
# PALLAS_LSP_BIN=build/static/bin/pallas-lsp): the shared build maps ~78 MB of
# libLLVM/libMLIR pages, which its peak RSS counts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
bin="${PALLAS_LSP_BIN:-$build/server/pallas-lsp}"
[ -x "$bin" ] || { echo "no pallas-lsp at $bin; build first (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$root/bench/results"
floor=()  # tree-sitter parsing alone, when the build has it (ninja bench_parse_floor)
[ -x "$build/bench/check/bench_parse_floor" ] && floor=(--parse-floor "$build/bench/check/bench_parse_floor")
exec "$root/.venv/bin/python" "$root/bench/check/bench_check.py" --bin "$bin" --ruff "$root/.venv/bin/ruff" "${floor[@]}" \
  --out "$root/bench/results/check-throughput-$(date -u +%Y-%m-%dT%H-%M-%S).json" "$@"
