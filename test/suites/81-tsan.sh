#!/usr/bin/env bash
# ThreadSanitizer over the server's concurrency core: builds build-tsan with
# -fsanitize=thread and runs, each several times over, the tests that drive
# the per-document scheduler (workers, timers, stop tokens, forget) and the
# protocol endpoint (reader thread, dispatch, cancellation, the bounded output
# queue and its backpressure) from several threads. These two libraries
# depend on no analysis code, so the tree builds in a minute or two.
#
# PALLAS_LSP_TSAN_FULL=1 builds the whole server under ThreadSanitizer too and
# runs every unit test and the LSP transcripts (test/lsp) against it: the
# analysis and MLIR compile again (about as long as the ASan tree), so CI
# runs the core and the full run is made by hand (docs/testing.md).
set -euo pipefail
cd "$PALLAS_LSP_ROOT"
build="$PALLAS_LSP_ROOT/build-tsan"
repeat="${PALLAS_LSP_TSAN_REPEAT:-5}"
# halt_on_error: the first race fails the suite with both stacks printed.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:history_size=4}"

if [ "${PALLAS_LSP_TSAN_FULL:-0}" = 1 ]; then
  # Suppressions, if any are ever needed, with their reasons: tsan-suppressions.txt.
  export TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$PALLAS_LSP_ROOT/test/suites/tsan-suppressions.txt"
  bash scripts/build.sh "$build" -DPALLAS_LSP_TSAN=ON
  ctest --test-dir "$build" --output-on-failure --no-tests=error -j 2
  PALLAS_LSP_BIN="$build/server/pallas-lsp" "$PALLAS_LSP_PYTHON" -m pytest -q -p no:cacheprovider test/lsp
  exit 0
fi

PALLAS_LSP_TARGETS="pallas_scheduler_tests pallas_protocol_tests" \
  bash scripts/build.sh "$build" -DPALLAS_LSP_TSAN=ON
for tests in "$build/test/server/pallas_scheduler_tests" "$build/test/protocol/pallas_protocol_tests"; do
  echo "--- $(basename "$tests") under ThreadSanitizer, $repeat times"
  "$tests" --gtest_repeat="$repeat" --gtest_brief=1
done
