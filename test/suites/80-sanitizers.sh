#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer: builds build-asan with the
# sanitizers and the libFuzzer targets, runs the unit tests (ctest) and the
# LSP transcripts against the sanitized binary, then every fuzz_* executable
# for a bounded time (PALLAS_LSP_FUZZ_SECONDS, default 20) from its seeds.
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
build="$PALLAS_LSP_ROOT/build-asan"
fuzz_seconds="${PALLAS_LSP_FUZZ_SECONDS:-20}"

bash scripts/build.sh "$build" -DPALLAS_LSP_SANITIZE=ON -DPALLAS_LSP_FUZZ=ON

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

ctest --test-dir "$build" --output-on-failure -j 2

PALLAS_LSP_BIN="$build/server/pallas-lsp" "$PALLAS_LSP_PYTHON" -m pytest -q -p no:cacheprovider test/lsp

status=0
mapfile -t fuzzers < <(find "$build" -type f -name 'fuzz_*' -perm -u+x | sort)
[ ${#fuzzers[@]} -gt 0 ] || { echo "no fuzz_* executables in $build"; exit 1; }
for fuzzer in "${fuzzers[@]}"; do
  name="$(basename "$fuzzer")"
  corpus="$(mktemp -d)"
  seeds="$PALLAS_LSP_ROOT/test/fuzz/seeds"
  [ -d "$PALLAS_LSP_ROOT/test/fuzz/seeds/$name" ] && seeds="$PALLAS_LSP_ROOT/test/fuzz/seeds/$name"
  artifacts="$build/fuzz-artifacts/$name/"
  mkdir -p "$artifacts"
  echo "--- $name for ${fuzz_seconds}s"
  if "$fuzzer" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
      -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) \
      2>"$build/fuzz-artifacts/$name.log"; then
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$build/fuzz-artifacts/$name.log" | tail -2 || true
  else
    echo "$name FAILED (crash input in $artifacts):"; tail -40 "$build/fuzz-artifacts/$name.log"
    status=1
  fi
  rm -rf "$corpus"
done
exit $status
