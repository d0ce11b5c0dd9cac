#!/usr/bin/env bash
# The discharge-feasibility analysis: its unit and golden tests (ctest also
# runs them; here they run on their own for a quick signal) and the PLS004
# fixtures checked against real JAX; every other fixture labelled a golden
# that names the oracle fixtures checking its JAX facts.
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
py="${PALLAS_LSP_PYTHON:-$PALLAS_LSP_ROOT/.venv/bin/python}"
tests="$(dirname "$PALLAS_LSP_BIN")/../test/discharge/discharge_tests"
if [ -x "$tests" ]; then
  "$tests" --gtest_brief=1
else
  echo "45-discharge: $tests is not built" >&2; exit 1
fi
exec "$py" -m pytest -q -p no:cacheprovider test/discharge/test_pls004_real_jax.py test/discharge/test_fixture_labels.py test/discharge/test_path_matrix.py
