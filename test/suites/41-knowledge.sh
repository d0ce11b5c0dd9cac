#!/usr/bin/env bash
# The bundled JAX knowledge table is current, and its key facts hold in real JAX.
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
py="${PALLAS_LSP_PYTHON:-$PALLAS_LSP_ROOT/.venv/bin/python}"
JAX_PLATFORMS=cpu exec "$py" -m pytest -q -p no:cacheprovider test/knowledge
