#!/usr/bin/env bash
# Configures (once) and builds one build tree.
#   scripts/build.sh [BUILD_DIR] [extra cmake -D options...]
# BUILD_DIR defaults to build/. Set PALLAS_LSP_TARGETS to build only some targets.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"; shift || true
case "$build" in /*) ;; *) build="$root/$build";; esac
cuda_root="$(ls -d "$root"/.venv/lib/python3*/site-packages/nvidia/cu13 2>/dev/null | head -n1 || true)"
# ccache, where the machine has it, makes a second tree (a worktree, a
# sanitizer build) or a rebuild after a branch switch cost little.
launcher="$(command -v ccache || true)"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    ${cuda_root:+-DCUDAToolkit_ROOT="$cuda_root"} \
    ${launcher:+-DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} \
    -DPALLAS_LSP_PYTHON="$root/.venv/bin/python" "$@" >/dev/null
fi
# 2 cores, and an MLIR translation unit takes ~0.5 GB: two jobs fit.
cmake --build "$build" -j "${PALLAS_LSP_JOBS:-2}" ${PALLAS_LSP_TARGETS:+--target $PALLAS_LSP_TARGETS}
