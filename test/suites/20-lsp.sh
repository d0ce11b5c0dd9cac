#!/usr/bin/env bash
# LSP transcript tests: the real `pallas-lsp serve` (stdio and TCP) driven over
# pipes/sockets with scripted messages and asserted replies, plus the CLI.
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
"$PALLAS_LSP_PYTHON" -m pytest -q -p no:cacheprovider test/lsp
