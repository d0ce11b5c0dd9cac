#!/usr/bin/env bash
# Readers while an analysis runs (hover, codeLens, codeAction, pull
# diagnostics during the analysis of a 10k-line module). Reports; never asserts.
#   bench/readers/run.sh [BUILD_DIR] [bench_readers.py options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
[ -x "$build/server/pallas-lsp" ] || PALLAS_LSP_TARGETS=pallas-lsp bash "$root/scripts/build.sh" "$build"
mkdir -p "$root/bench/results"
exec "${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}" "$root/bench/readers/bench_readers.py" \
  --bin "$build/server/pallas-lsp" --out "$root/bench/results/readers.json" "$@"
