#!/usr/bin/env bash
# GoogleTest unit tests and the LSP transcript tests registered with ctest.
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
ctest --test-dir build --output-on-failure -j 2
