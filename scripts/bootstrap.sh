#!/usr/bin/env bash
# Installs everything pallas-lsp needs to build and test: Debian packages,
# the npm packages (tree-sitter-python grammar and test clients, from the lock
# files), and a Python virtual environment (.venv) with pinned JAX for CPU,
# pytest and the CUDA toolkit wheels. Idempotent: each step is skipped when a
# stamp says its inputs have not changed, so a second run takes seconds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

log() { printf '[bootstrap] %s\n' "$*" >&2; }
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# ---- Debian packages -------------------------------------------------------
apt_packages=(
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 libclang-rt-22-dev
  nlohmann-json3-dev libtomlplusplus-dev libboost-dev libgtest-dev libgmock-dev
  clang-format-22 clang-tidy-22 neovim cmake ninja-build pkg-config python3-venv
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- npm packages (lock files; no install scripts: we compile the grammar) --
npm_install() {  # dir
  local dir="$1" want
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if ! stamp_ok "$dir/node_modules/.pallas-stamp" "$want"; then
    log "npm ci in ${dir#$root/}"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$want" > "$dir/node_modules/.pallas-stamp"
  fi
}
npm_install "$root"
if [ -f "$root/editors/vscode/package-lock.json" ]; then npm_install "$root/editors/vscode"; fi

# ---- Python environment ----------------------------------------------------
python="${PALLAS_LSP_BOOTSTRAP_PYTHON:-python3}"
want="$(cat requirements.txt requirements-cuda.txt 2>/dev/null | sha256sum | cut -d' ' -f1)"
if ! stamp_ok .venv/.pallas-stamp "$want"; then
  log "creating .venv with pinned JAX (CPU) and CUDA toolkit wheels"
  [ -x .venv/bin/python ] || "$python" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  if [ -f requirements-cuda.txt ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-cuda.txt
  fi
  echo "$want" > .venv/.pallas-stamp
fi
log "ready"
