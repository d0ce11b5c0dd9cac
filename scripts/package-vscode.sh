#!/usr/bin/env bash
# Packages the VS Code extension into dist/:
#   scripts/package-vscode.sh                     the universal .vsix (finds pallas-lsp in the
#                                                 selected Python environment or on PATH)
#   scripts/package-vscode.sh --target linux-x64  also carries the self-contained server, its
#                                                 runner and knowledge tables in bundled/ (ruff's
#                                                 way): the last fallback, and the only choice in
#                                                 untrusted workspaces
# The extension is one esbuild bundle (dist/extension.js); vsce runs with
# --no-dependencies, so no node_modules go in. Prints the .vsix path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$root/editors/vscode"
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    *) echo "usage: scripts/package-vscode.sh [--target linux-x64]" >&2; exit 2 ;;
  esac
done
version="$(node -p "require('$ext/package.json').version")"
mkdir -p "$root/dist"
rm -rf "$ext/bundled"
trap 'rm -rf "$ext/bundled"' EXIT
if [ -n "$target" ]; then
  [ "$target" = linux-x64 ] || { echo "only linux-x64 has a bundled server" >&2; exit 2; }
  # The wheel's files in the wheel's layout (scripts/packaging/CMakeLists.txt):
  # bundled/bin/pallas-lsp, bundled/share/pallas-lsp/{runner, knowledge/}.
  PALLAS_LSP_TARGETS=pallas-lsp-static bash "$root/scripts/build.sh" "$root/build" >&2
  cmake --install "$root/build" --component wheel --prefix "$ext/bundled" >&2
  [ -x "$ext/bundled/bin/pallas-lsp" ] || { echo "no bundled/bin/pallas-lsp after the install" >&2; exit 1; }
  out="$root/dist/pallas-lsp-$target-$version.vsix"
  (cd "$ext" && ./node_modules/.bin/vsce package --no-dependencies --target "$target" --out "$out" >&2)
else
  out="$root/dist/pallas-lsp-$version.vsix"
  (cd "$ext" && ./node_modules/.bin/vsce package --no-dependencies --out "$out" >&2)
fi
echo "$out"
