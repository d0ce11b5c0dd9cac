#!/usr/bin/env bash
# Scale benchmarks (bench_scale.py): check linearity, check vs ruff side by
# side, server start/memory. Reports; never asserts.
#   bench/scale/run.sh [BUILD_DIR] [bench_scale.py options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
[ -x "$build/server/pallas-lsp" ] || PALLAS_LSP_TARGETS=pallas-lsp bash "$root/scripts/build.sh" "$build"
exec "${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}" "$root/bench/scale/bench_scale.py" \
  --bin "$build/server/pallas-lsp" "$@"
