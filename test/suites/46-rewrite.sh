#!/usr/bin/env bash
# Issue 5: the inline_mgpu rewrite and the path quick fixes.
# gtest units run through ctest (10-unit); this suite runs the real-JAX
# checks: every rewrite fixture, rewritten and run with interpret=True on CPU.
set -euo pipefail
root="${PALLAS_LSP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
python="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
build="$(dirname "$(dirname "${PALLAS_LSP_BIN:-$root/build/server/pallas-lsp}")")"
tool="$build/test/rewrite/rewrite_tool"
if [ ! -x "$tool" ]; then
  cmake --build "$build" --target rewrite_tool -j "${PALLAS_LSP_JOBS:-2}"
fi
export PALLAS_REWRITE_TOOL="$tool" JAX_PLATFORMS=cpu
exec "$python" -m pytest -q -p no:cacheprovider "$root/test/rewrite/test_rewrite.py" "$@"
