#!/usr/bin/env bash
# The py dialect and the evaluator on their own (analysis/py, analysis/eval):
# every case of test/eval/cases runs under py-eval and each `reveal(...)`
# must show what its comment expects; every .py file of the installed JAX
# package lowers to a py module the MLIR verifier accepts.
set -euo pipefail
root="${PALLAS_LSP_ROOT:?}"
build="$(cd "$(dirname "${PALLAS_LSP_BIN:?}")/.." && pwd)"
py_eval="$build/analysis/tools/py-eval/py-eval"
[ -x "$py_eval" ] || { echo "32-eval: $py_eval is not built" >&2; exit 1; }
py="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
"$py" "$root/test/eval/run_cases.py" "$py_eval"
jax_dir="$("$py" -c 'import jax, os; print(os.path.dirname(jax.__file__))')"
bad="$(find "$jax_dir" -name '*.py' -print0 |
  xargs -0 -P 2 -n 1 sh -c '"$0" "$1" --ir >/dev/null 2>&1 || echo "$1"' "$py_eval")"
files="$(find "$jax_dir" -name '*.py' | wc -l)"
if [ -n "$bad" ]; then
  echo "32-eval: these JAX files do not lower to a valid py module:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "32-eval: all $files JAX files lower to valid py modules"
