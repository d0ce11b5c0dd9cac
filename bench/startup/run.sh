#!/usr/bin/env bash
# Startup of the development binary (shared libLLVM/libMLIR) against the
# wheel's self-contained one: process start -> initialize reply, 30 runs each.
#   bench/startup/run.sh [BUILD_DIR] [bench_startup.py options, e.g. --bin wheel=/venv/bin/pallas-lsp]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
PALLAS_LSP_TARGETS="pallas-lsp pallas-lsp-static" bash "$root/scripts/build.sh" "$build"
exec "${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}" "$root/bench/startup/bench_startup.py" \
  --bin dynamic="$build/server/pallas-lsp" --bin static="$build/static/bin/pallas-lsp" "$@"
