#!/usr/bin/env bash
# FileCheck tests on .mlir inputs (test/mlir/, run by lit): the pallas
# dialect's round trip and verifiers, and every analysis pass run by
# pallas-opt on modules the front end printed. lit and FileCheck come from
# the Debian package llvm-22-tools (scripts/bootstrap.sh installs it).
set -euo pipefail
root="${PALLAS_LSP_ROOT:?}"
build="$(cd "$(dirname "${PALLAS_LSP_BIN:?}")/.." && pwd)"
opt="$build/analysis/tools/pallas-opt/pallas-opt"
[ -x "$opt" ] || { echo "35-mlir: $opt is not built" >&2; exit 1; }
llvm_bin="$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)"
lit="$llvm_bin/lit"
[ -x "$lit" ] || lit="$(command -v lit || true)"
[ -n "$lit" ] || { echo "35-mlir: lit not found (apt-get install llvm-22-tools)" >&2; exit 1; }
# Every pass declared in Passes.td has a folder of FileCheck tests
# (test/mlir/<argument without "pallas-">/, a case that reports and one that
# does not: at least two RUN lines).
for pass in $(sed -n 's/^def [A-Za-z_]* : Pass<"pallas-\([a-z0-9-]*\)".*/\1/p' "$root/analysis/passes/Passes.td"); do
  runs="$(cat "$root/test/mlir/$pass"/*.mlir 2>/dev/null | grep -cE 'RUN:.*pallas-opt' || true)"
  [ "${runs:-0}" -ge 2 ] || { echo "35-mlir: pass pallas-$pass has no FileCheck tests in test/mlir/$pass/ (need a case that reports and one that does not)" >&2; exit 1; }
done
# Every function of the installed JAX package lowers to a module the MLIR
# verifier accepts: a function it rejects is analysed as empty, and its
# findings are silently missing (`could not analyse` on stderr). JAX's ~600
# files are Python as its authors write it, not as our fixtures do.
py="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
jax_dir="$("$py" -c 'import jax, os; print(os.path.dirname(jax.__file__))')"
unanalysed="$(find "$jax_dir" -name '*.py' -print0 |
  xargs -0 -P 2 -n 1 sh -c '"$0" mlir "$1" 2>&1 >/dev/null | grep "could not analyse" || true' "$PALLAS_LSP_BIN")"
files="$(find "$jax_dir" -name '*.py' | wc -l)"
if [ -n "$unanalysed" ]; then
  echo "35-mlir: functions of the installed JAX that lower to invalid modules:" >&2
  echo "$unanalysed" | head -20 >&2
  echo "($(echo "$unanalysed" | wc -l) in all, of $files files)" >&2
  exit 1
fi
echo "35-mlir: all functions of $files files of the installed JAX lower and verify"
exec "$lit" -sv "$root/test/mlir" -Dpallas_opt="$opt" -Dpallas_lsp="$PALLAS_LSP_BIN" \
  -Dllvm_bin="$llvm_bin" -Dexec_root="$build/test-mlir"
