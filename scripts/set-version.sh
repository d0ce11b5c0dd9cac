#!/usr/bin/env bash
# Sets the one version number: CMakeLists.txt's project(... VERSION), from
# which the wheel (pyproject.toml's regex), `pallas-lsp version` and the
# server's serverInfo follow at build time; and the VS Code extension's
# package.json / package-lock.json, which npm needs written out. Adds an
# empty CHANGELOG.md heading when there is none for it.
# test/suites/70-wheel.sh (test/wheel/check_versions.py) checks they agree.
#   scripts/set-version.sh X.Y.Z
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
v="${1:?usage: scripts/set-version.sh X.Y.Z}"
[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not X.Y.Z: $v" >&2; exit 2; }
sed -i -E "s/^project\(pallas_lsp VERSION [0-9]+\.[0-9]+\.[0-9]+/project(pallas_lsp VERSION $v/" "$root/CMakeLists.txt"
(cd "$root/editors/vscode" && npm version "$v" --no-git-tag-version --allow-same-version >/dev/null)
if ! grep -q "^## $v\b" "$root/CHANGELOG.md"; then
  python3 - "$root/CHANGELOG.md" "$v" <<'PY'
import re, sys
path, v = sys.argv[1], sys.argv[2]
text = open(path).read()
m = re.search(r"^## ", text, re.M)
at = m.start() if m else len(text)
open(path, "w").write(text[:at] + f"## {v}\n\n- (describe the changes)\n\n" + text[at:])
PY
fi
grep -n "^project(pallas_lsp VERSION" "$root/CMakeLists.txt"
