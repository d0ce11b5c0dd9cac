#!/usr/bin/env bash
# The whole test suite: set up, build, then run every suite in test/suites/
# (in name order). Each suite is a small script that exits non-zero on failure;
# its output is shown as it runs. A summary closes the run.
#   scripts/run-tests.sh [SUITE_NAME_SUBSTRING...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh || { echo "bootstrap failed"; exit 2; }
bash scripts/build.sh build || { echo "build failed"; exit 2; }

export PALLAS_LSP_ROOT="$root"
export PALLAS_LSP_BIN="$root/build/server/pallas-lsp"
export PALLAS_LSP_PYTHON="$root/.venv/bin/python"
# Every skip is printed with its reason (pytest -rs; ctest and the editor
# tests print "SKIP: <test>: <reason>"), and listed again in the summary:
# a skip is only for what the machine lacks (a GPU), never a missing feature.
export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} -rs"
logs="$(mktemp -d "${TMPDIR:-/tmp}/pallas-suites.XXXXXX")"
trap 'rm -rf "$logs"' EXIT

passed=0; failed=0; failed_names=()
for suite in test/suites/*.sh; do
  name="$(basename "$suite" .sh)"
  if [ $# -gt 0 ]; then
    keep=0; for want in "$@"; do [[ "$name" == *"$want"* ]] && keep=1; done
    [ $keep -eq 1 ] || continue
  fi
  echo "=== suite $name"
  start=$(date +%s)
  if bash "$suite" 2>&1 | tee "$logs/$name.log"; then
    passed=$((passed + 1)); echo "=== suite $name: ok ($(( $(date +%s) - start ))s)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "=== suite $name: FAILED ($(( $(date +%s) - start ))s)"
  fi
done
echo
skips="$(grep -hE '^(SKIPPED \[|SKIP: )' "$logs"/*.log 2>/dev/null)"
if [ -n "$skips" ]; then echo "skipped (reason):"; echo "$skips" | sed 's/^/  /'; else echo "skipped: none"; fi
[ $failed -eq 0 ] || echo "failed suites: ${failed_names[*]}"
echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
