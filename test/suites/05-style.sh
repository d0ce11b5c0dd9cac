#!/usr/bin/env bash
# One house style (scripts/check-style.sh): every C++ file we own is as
# clang-format-22 writes it (the repo's .clang-format), and clang-tidy-22
# (.clang-tidy: bugprone, performance, identifier naming) reports nothing on
# the product sources, read through build/compile_commands.json (the suite
# runner has built the tree). Like clang-format, clang-tidy-22 is required.
set -euo pipefail
root="${PALLAS_LSP_ROOT:?}"
cd "$root"
if ! out="$(bash scripts/check-style.sh "$root/build" 2>&1)"; then
  sed 's/^/05-style: /' <<<"$out" >&2
  echo "05-style: format: 'bash scripts/check-style.sh --fix-format'; tidy: fix the code, or a NOLINT(check) with the reason" >&2
  exit 1
fi
sed 's/^/05-style: /' <<<"$out"
