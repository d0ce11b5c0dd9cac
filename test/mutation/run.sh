#!/usr/bin/env bash
# Mutation testing (issue 19): applies every mutant of test/mutation/mutate.py
# (knowledge-table edits through PALLAS_LSP_KNOWLEDGE_DIR, one-line source
# mutants compiled into build-mutant/ with -DPALLAS_LSP_MUTANT=N), runs the
# narrowest suites that should kill each, and prints which survive and the
# kill rate. Not part of the test suite (it rebuilds); `nice`d because the
# machine is shared. Needs build/ (scripts/build.sh). Exit 1 if any survives.
#   test/mutation/run.sh [--only NAME...] [--list]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PALLAS_LSP_PYTHON="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
exec nice -n 10 "$PALLAS_LSP_PYTHON" test/mutation/mutate.py "$@"
