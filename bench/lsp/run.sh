#!/usr/bin/env bash
# LSP benchmarks: startup -> initialize response, and small-request latency
# over TCP while a second client loads the server. Reports; never asserts.
#   bench/lsp/run.sh [BUILD_DIR] [bench_lsp.py options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
[ -x "$build/server/pallas-lsp" ] || PALLAS_LSP_TARGETS=pallas-lsp bash "$root/scripts/build.sh" "$build"
exec "${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}" "$root/bench/lsp/bench_lsp.py" \
  --bin "$build/server/pallas-lsp" "$@"
