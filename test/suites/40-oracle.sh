#!/usr/bin/env bash
# The real-JAX oracle: runs every fixture in test/oracle/fixtures with JAX on
# CPU (2 at a time), checks what happened against each fixture's header, and
# checks that `pallas-lsp check` agrees with what JAX did, both ways.
# ORACLE_AGREEMENT=0 runs only the recording half (no binary needed).
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
py="${PALLAS_LSP_PYTHON:-$PALLAS_LSP_ROOT/.venv/bin/python}"
select=()
[ "${ORACLE_AGREEMENT:-1}" = 0 ] && select=(-m "not agreement")
exec "$py" -m pytest -q -p no:cacheprovider test/oracle "${select[@]}"
