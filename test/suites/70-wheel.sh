#!/usr/bin/env bash
# The wheel, end to end, as a user gets it:
#  1. scripts/build-wheel.sh builds it (the build tree's objects, linked
#     statically: pallas-lsp-static) and auditwheel tags it manylinux;
#  2. a fresh virtual environment (no system site-packages) installs it; with
#     LD_LIBRARY_PATH empty, ldd shows no LLVM, MLIR, tree-sitter or libstdc++:
#     glibc only; the binary finds its runner and tables in the venv's share/;
#  3. one version everywhere (test/wheel/check_versions.py);
#  4. `pallas-lsp check examples/` gives what the development binary gives;
#     an LSP session over stdio (test/wheel/lsp_smoke.py); `python -m pallas_lsp`;
#  5. `pallas-lsp run` in interpret mode with the venv's own JAX (installed
#     into it from the package index, pinned as in requirements.txt);
#  6. the GitHub Actions workflow of docs/ci.md: its check step, SARIF out;
#  7. the pre-commit hooks: the manifest validates, and `pre-commit try-repo`
#     runs pallas-lsp-system in a scratch git repository.
set -euo pipefail
root="${PALLAS_LSP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
dev_bin="${PALLAS_LSP_BIN:-$root/build/server/pallas-lsp}"
cd "$root"

fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tools="${PALLAS_LSP_WHEEL_TOOLS:-$root/build-wheel-tools}"

echo "--- build the wheel (scripts/build-wheel.sh)"
start=$(date +%s)
bash scripts/build-wheel.sh >"$work/wheel-path" 2>"$work/build.log" || { tail -n 40 "$work/build.log"; fail "scripts/build-wheel.sh failed"; }
wheel="$(tail -n1 "$work/wheel-path")"
[ -f "$wheel" ] || fail "no wheel at '$wheel'"
echo "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1)) in $(( $(date +%s) - start ))s"
case "$(basename "$wheel")" in
  pallas_lsp-*-py3-none-manylinux_*_x86_64.whl) ;;
  *) fail "the wheel is not tagged py3-none-manylinux_*: $(basename "$wheel")" ;;
esac
# The documented floor (README, docs/ci.md): glibc 2.35, Ubuntu 22.04.
glibc_minor="$(basename "$wheel" | sed -E 's/.*manylinux_2_([0-9]+)_x86_64.*/\1/')"
[ "$glibc_minor" -le 35 ] || fail "the wheel needs glibc 2.$glibc_minor; the documented floor is 2.35"
"$tools/bin/auditwheel" show "$wheel" >"$work/auditwheel.txt" 2>&1 || { cat "$work/auditwheel.txt"; fail "auditwheel show failed"; }
grep -q "is consistent with" "$work/auditwheel.txt" || { cat "$work/auditwheel.txt"; fail "auditwheel: no manylinux policy fits"; }
sed -n '/is consistent with/,/platform tag/p' "$work/auditwheel.txt" | tr '\n' ' ' | sed 's/  */ /g'; echo

echo "--- install into a fresh virtual environment"
venv="$work/venv"
python3 -m venv "$venv"
grep -q "include-system-site-packages = false" "$venv/pyvenv.cfg" || fail "the venv sees system site-packages"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
bin="$venv/bin/pallas-lsp"
[ -x "$bin" ] || fail "the wheel did not install pallas-lsp into the venv's bin/"
for f in $(cd "$root/gpu/runner" && ls pallas_lsp_*.py | sed "s|^|share/pallas-lsp/|") share/pallas-lsp/knowledge/extract_knowledge.py \
    share/pallas-lsp/knowledge/pallas_jax_facts/config.py share/pallas-lsp/knowledge/pallas_jax_facts/mosaic_rules.py; do
  [ -f "$venv/$f" ] || fail "the wheel did not install $f"
done
ls "$venv"/share/pallas-lsp/knowledge/jax-*.json >/dev/null || fail "no knowledge table in the venv"

echo "--- ldd with an empty LD_LIBRARY_PATH: glibc only"
LD_LIBRARY_PATH= ldd "$bin" | tee "$work/ldd.txt"
if grep -E "llvm|MLIR|LLVM|tree-sitter|libstdc\+\+|libgcc_s|libz|not found" "$work/ldd.txt"; then
  fail "the installed binary needs a library beyond glibc"
fi
needed="$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
echo "NEEDED: $needed"
for lib in $needed; do
  case "$lib" in libc.so.6|libm.so.6|ld-linux-x86-64.so.2|libpthread.so.0|libdl.so.2|librt.so.1) ;;
    *) fail "the installed binary needs $lib" ;; esac
done

echo "--- the binary finds its runner and tables in the venv (not the source tree)"
(cd "$work" && env -u PALLAS_LSP_RUNNER -u PALLAS_LSP_KNOWLEDGE_DIR -u PALLAS_LSP_KNOWLEDGE \
  "$bin" doctor --json --python "$venv/bin/python" >"$work/doctor.json") || true
python3 - "$work/doctor.json" "$venv" <<'PY' || fail "doctor: the installed binary does not use the venv's share/pallas-lsp"
import json, os, sys
doctor, venv = json.load(open(sys.argv[1])), os.path.realpath(sys.argv[2])
runner, tables = doctor["runner"], doctor["knowledge"]["tables"]
print("runner:", runner, "\ntables:", tables)
share = os.path.join(venv, "share", "pallas-lsp")
assert os.path.realpath(runner) == os.path.join(share, "pallas_lsp_runner.py"), runner
assert tables and all(os.path.realpath(t).startswith(share + os.sep) for t in tables), tables
PY

echo "--- one version everywhere"
python3 test/wheel/check_versions.py "$root" \
  "pallas-lsp version=$("$bin" version)" \
  "pallas-lsp --version=$("$bin" --version)" \
  "python -m pallas_lsp version=$("$venv/bin/python" -m pallas_lsp version)" \
  "wheel METADATA=$(unzip -p "$wheel" '*.dist-info/METADATA' | sed -n 's/^Version: //p')" \
  "wheel file name=$(basename "$wheel" | cut -d- -f2)"

echo "--- pallas-lsp check examples/ (same report as the development binary)"
set +e
(cd "$root" && "$bin" check examples/ >"$work/check-wheel.txt"); rc_wheel=$?
(cd "$root" && "$dev_bin" check examples/ >"$work/check-dev.txt"); rc_dev=$?
set -e
tail -n 2 "$work/check-wheel.txt"
[ "$rc_wheel" -eq 1 ] || fail "check examples/: exit $rc_wheel, want 1 (the examples have findings)"
grep -q "error\[PLS001\]" "$work/check-wheel.txt" || fail "check examples/: no PLS001"
[ "$rc_dev" -eq "$rc_wheel" ] && diff "$work/check-dev.txt" "$work/check-wheel.txt" \
  || fail "the wheel's check differs from build/server/pallas-lsp's"

echo "--- LSP over stdio: initialize, diagnostics, shutdown, exit"
PALLAS_LSP_BIN="$bin" "$venv/bin/python" test/wheel/lsp_smoke.py \
  "$("$bin" --version | cut -d' ' -f2)" examples/debug_inline_mgpu_interpret.py

echo "--- python -m pallas_lsp runs the bundled binary"
"$venv/bin/python" -m pallas_lsp --help | grep -q "^usage: pallas-lsp" || fail "python -m pallas_lsp --help"
set +e; "$venv/bin/python" -m pallas_lsp check --quiet "$root/examples/elementwise_add.py"; rc=$?; set -e
[ "$rc" -eq 0 ] || fail "python -m pallas_lsp check on a clean kernel: exit $rc"

echo "--- pallas-lsp run --mode interpret with the venv's JAX"
pins="$(grep -E '^(jax|jaxlib|numpy)==' requirements.txt | tr '\n' ' ')"
"$venv/bin/python" -m pip install -q --disable-pip-version-check $pins
(cd "$work" && "$bin" run "$root/examples/elementwise_add.py" --entry main --mode interpret \
   --python "$venv/bin/python" --json >"$work/run.json") || { cat "$work/run.json"; fail "pallas-lsp run failed"; }
python3 - "$work/run.json" "$venv" <<'PY' || fail "the run did not use the venv's JAX and runner"
import json, os, sys
run, venv = json.load(open(sys.argv[1])), sys.argv[2]
env = run["environment"]
print(run["message"], "| python", env["executable"], "| jax", env["jax"], "| backend", env["backend"])
assert run["exit_code"] == 0, run.get("exit_code")
assert env["executable"] == os.path.join(venv, "bin", "python"), env["executable"]
assert env["jax"], env
assert os.path.realpath(run["command"][1]) == os.path.realpath(os.path.join(venv, "share", "pallas-lsp", "pallas_lsp_runner.py")), run["command"]
PY

echo "--- docs/ci.md: the GitHub Actions workflow's check step, SARIF"
want_pc="pre-commit==4.7.0"
[ "$(cat "$tools/.pallas-pre-commit" 2>/dev/null)" = "$want_pc" ] || {
  "$tools/bin/python" -m pip install -q --disable-pip-version-check "$want_pc"; echo "$want_pc" >"$tools/.pallas-pre-commit"; }
mkdir -p "$work/project/src"
cp examples/*.py "$work/project/src/"
"$tools/bin/python" - "$root/docs/ci.md" "$work/ci-step.sh" <<'PY'
import re, sys, yaml
text = open(sys.argv[1]).read()
block = re.search(r"```yaml\n(name: pallas-lsp\n.*?)```", text, re.S).group(1)
workflow = yaml.safe_load(block)
steps = workflow["jobs"]["pallas-lsp"]["steps"]
checks = [s["run"] for s in steps if "pallas-lsp check" in s.get("run", "")]
uploads = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
assert len(checks) == 1 and uploads, steps
sarif = uploads[0]["with"]["sarif_file"]
assert "--format sarif" in checks[0] and sarif in checks[0], (checks, sarif)
assert workflow["permissions"]["security-events"] == "write"
open(sys.argv[2], "w").write(checks[0] + "\n")
print("step:", checks[0])
PY
(cd "$work/project" && PATH="$venv/bin:$PATH" bash "$work/ci-step.sh") || fail "the workflow's check step failed"
python3 - "$work/project/pallas-lsp.sarif" <<'PY' || fail "the workflow's SARIF"
import json, sys
sarif = json.load(open(sys.argv[1]))
assert sarif["version"] == "2.1.0", sarif.get("version")
results = sarif["runs"][0]["results"]
rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
assert results and {r["ruleId"] for r in results} <= rules, results[:1]
assert any(r["ruleId"] == "PLS001" for r in results)
print(f"SARIF 2.1.0: {len(results)} results, rules {sorted(rules)}")
PY

echo "--- pre-commit: the manifest, and pallas-lsp-system through try-repo"
"$tools/bin/pre-commit" validate-manifest .pre-commit-hooks.yaml || fail "pre-commit validate-manifest"
repo="$work/precommit"
mkdir -p "$repo"
git -C "$repo" init -q
cp examples/debug_inline_mgpu_interpret.py "$repo/kernel.py"
git -C "$repo" add kernel.py
export PRE_COMMIT_HOME="$work/pre-commit-home" GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@localhost GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@localhost
set +e
(cd "$repo" && PATH="$venv/bin:$PATH" "$tools/bin/pre-commit" try-repo "$root" pallas-lsp-system >"$work/pc-bad.txt" 2>&1); rc_bad=$?
set -e
grep -q "PLS001" "$work/pc-bad.txt" && [ "$rc_bad" -ne 0 ] || { cat "$work/pc-bad.txt"; fail "pre-commit did not refuse a kernel with a finding"; }
echo "kernel with a finding: refused (exit $rc_bad, PLS001 reported)"
cp examples/elementwise_add.py "$repo/kernel.py"
git -C "$repo" add kernel.py
(cd "$repo" && PATH="$venv/bin:$PATH" "$tools/bin/pre-commit" try-repo "$root" pallas-lsp-system >"$work/pc-ok.txt" 2>&1) \
  || { cat "$work/pc-ok.txt"; fail "pre-commit refused a clean kernel"; }
grep -q "Passed" "$work/pc-ok.txt" || { cat "$work/pc-ok.txt"; fail "pre-commit: the hook did not run"; }
echo "clean kernel: passed"

echo "--- VS Code: the linux-x64 .vsix carries the self-contained server"
vsix="$(bash scripts/package-vscode.sh --target linux-x64 2>"$work/vsix.log" | tail -n1)" \
  || { tail -n 30 "$work/vsix.log"; fail "scripts/package-vscode.sh --target linux-x64"; }
python3 - "$vsix" "$work/vsix" <<'PY' || fail "the linux-x64 .vsix"
import json, os, stat, sys, zipfile
vsix = zipfile.ZipFile(sys.argv[1])
names = vsix.namelist()
manifest = vsix.read("extension.vsixmanifest").decode()
assert 'TargetPlatform="linux-x64"' in manifest, "the .vsix is not marked linux-x64"
assert not [n for n in names if "node_modules/" in n], "node_modules in the .vsix"
binary = vsix.getinfo("extension/bundled/bin/pallas-lsp")
assert stat.S_IMODE(binary.external_attr >> 16) & 0o111, "the bundled binary is not executable in the zip"
for need in ("extension/bundled/share/pallas-lsp/pallas_lsp_runner.py", "extension/dist/extension.js"):
    assert need in names, need
assert [n for n in names if n.startswith("extension/bundled/share/pallas-lsp/knowledge/jax-")], "no knowledge table"
vsix.extractall(sys.argv[2])
os.chmod(os.path.join(sys.argv[2], "extension/bundled/bin/pallas-lsp"), 0o755)  # zipfile drops modes; VS Code keeps them
print(f"{os.path.basename(sys.argv[1])}: {len(names)} files, {os.path.getsize(sys.argv[1]) / 1e6:.1f} MB")
PY
bundled="$work/vsix/extension/bundled"
LD_LIBRARY_PATH= "$bundled/bin/pallas-lsp" doctor --json --python "$venv/bin/python" >"$work/vsix-doctor.json" || true
python3 - "$work/vsix-doctor.json" "$bundled" <<'PY' || fail "the bundled server does not find its runner and tables in bundled/share"
import json, os, sys
doctor, share = json.load(open(sys.argv[1])), os.path.join(os.path.realpath(sys.argv[2]), "share", "pallas-lsp")
assert os.path.realpath(doctor["runner"]).startswith(share + os.sep), doctor["runner"]
assert all(os.path.realpath(t).startswith(share + os.sep) for t in doctor["knowledge"]["tables"]), doctor["knowledge"]
print("bundled server: runner and tables from bundled/share/pallas-lsp")
PY

echo "--- VS Code: no server found -> the extension installs the wheel into the interpreter's environment"
# The extension's own install module (editors/vscode/out/install.js, compiled by
# the package step) with a real pip, into an environment with no pallas-lsp;
# pip takes the wheel just built (PIP_FIND_LINKS) instead of a package index.
fresh="$work/fresh-venv"
python3 -m venv "$fresh"
ext_out="$root/editors/vscode/out"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$(dirname "$wheel")" PATH="/usr/bin:/bin" node - "$ext_out" "$fresh/bin/python" <<'JS' || fail "the extension's install flow"
const path = require('path');
const [out, python] = process.argv.slice(2);
const { installServer, installedServerPath, requirementFor } = require(path.join(out, 'install.js'));
const { resolveServer } = require(path.join(out, 'serverPath.js'));
const version = require(path.join(out, '..', 'package.json')).version;
(async () => {
  const before = resolveServer(undefined, python, { trusted: true });
  if (before.source !== 'fallback') throw new Error(`a server was found before the install: ${JSON.stringify(before)}`);
  const result = await installServer(python, requirementFor(version));
  if (!result.ok) throw new Error(`pip failed:\n${result.output}`);
  const after = resolveServer(undefined, python, { trusted: true });
  if (after.source !== 'python-environment' || after.command !== installedServerPath(python))
    throw new Error(`after the install: ${JSON.stringify(after)}`);
  const { execFileSync } = require('child_process');
  const said = execFileSync(after.command, ['--version']).toString().trim();
  if (said !== `pallas-lsp ${version}`) throw new Error(`the installed server says ${said}`);
  console.log(`installed ${requirementFor(version)} into ${path.dirname(python)}: resolveServer -> ${after.command} (${said})`);
})().catch((e) => { console.error(e.message); process.exit(1); });
JS

echo "--- Neovim :checkhealth pallas_lsp with the wheel's environment active (\$VIRTUAL_ENV)"
(cd "$work" && env PATH="/usr/bin:/bin" VIRTUAL_ENV="$venv" HEALTH_OUT="$work/health.txt" PALLAS_LSP_ROOT="$root" \
  XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
  timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $root/test/editors/nvim_health.lua") \
  || fail ":checkhealth pallas_lsp did not run"
for want in "OK: binary: $bin" "interpreter: $venv/bin/python" "OK: JAX " \
            "OK: knowledge: JAX " "(table in use: $venv/share/pallas-lsp/knowledge/" "OK: runner: $venv/share/pallas-lsp/"; do
  grep -qF -- "$want" "$work/health.txt" || { cat "$work/health.txt"; fail ":checkhealth pallas_lsp lacks '$want'"; }
done
python3 test/wheel/check_versions.py "$root" ":checkhealth pallas_lsp (wheel)=$(grep -F 'version: ' "$work/health.txt")"
