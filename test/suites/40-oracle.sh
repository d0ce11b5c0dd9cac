#!/usr/bin/env bash
# The real-JAX oracle: runs every fixture in test/oracle/fixtures with JAX on
# CPU (2 at a time) and checks what happened against each fixture's header.
# ORACLE_AGREEMENT=1 also compares with `pallas-lsp check` (needs the analysis).
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
py="${PALLAS_LSP_PYTHON:-$PALLAS_LSP_ROOT/.venv/bin/python}"
select=(-m "not agreement")
[ "${ORACLE_AGREEMENT:-0}" = 1 ] && select=()
exec "$py" -m pytest -q -p no:cacheprovider test/oracle "${select[@]}"
