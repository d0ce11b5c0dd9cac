#!/usr/bin/env bash
# The analysis core through the real binary: `pallas-lsp mlir FILE` prints a
# verified pallas-dialect module with file:line:col locations, follows helpers
# in sibling modules, and survives broken input. (The GoogleTest suite
# analysis_tests runs under 10-unit.sh via ctest.)
set -euo pipefail
root="${PALLAS_LSP_ROOT:?}"
bin="${PALLAS_LSP_BIN:?}"
golden="$root/test/analysis/golden"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "30-analysis: $*" >&2; exit 1; }

# 1. A kernel file: launch, primitive and locations.
"$bin" mlir "$golden/imports.py" --stats >"$tmp/imports.mlir" 2>"$tmp/stats" || fail "mlir imports.py exited $?"
grep -q 'pallas.launch "pl.pallas_call"' "$tmp/imports.mlir" || fail "no launch in imports.py"
grep -q "pallas.prim \"plgpu.copy_gmem_to_smem\".*loc(\"$golden/imports.py\":17:3)" "$tmp/imports.mlir" \
  || fail "copy_gmem_to_smem not located at imports.py:17:3"
grep -q 'verified: yes' "$tmp/stats" || fail "module not verified: $(cat "$tmp/stats")"

# 2. Cross-file helpers resolve relative to the file's folder.
"$bin" mlir "$golden/crossfile/main.py" >"$tmp/cross.mlir" || fail "mlir crossfile exited $?"
grep -q "callee_file = \"$golden/crossfile/kernels/copies.py\"" "$tmp/cross.mlir" || fail "helper in kernels/copies.py not followed"

# 3. Broken and odd input never kills it.
printf 'def f(:\n  pl.pallas_call(\n\xff\xfe\n' >"$tmp/broken.py"
"$bin" mlir "$tmp/broken.py" >/dev/null || fail "broken input: exit $?"
: >"$tmp/empty.py"
"$bin" mlir "$tmp/empty.py" | grep -q '^module' || fail "empty file"

# 4. Usage errors exit 2.
set +e
"$bin" mlir >/dev/null 2>&1; [ $? -eq 2 ] || fail "mlir without FILE should exit 2"
"$bin" mlir "$tmp/does-not-exist.py" >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing file should exit 2"
set -e
echo "30-analysis: ok"
