#!/usr/bin/env bash
# The main job: set up, build, and batch-check the bundled example kernels.
# Exit code is pallas-lsp check's: 0 clean, 1 findings, 2 error.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
bash scripts/build.sh build
exec "$root/build/server/pallas-lsp" check "$root/examples" "$@"
