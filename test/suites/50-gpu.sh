#!/usr/bin/env bash
# gpu/: the runner script's unit tests (pytest, real JAX on the CPU) and the
# `pallas-lsp doctor` / `pallas-lsp run` commands end to end through the real
# binary. The C++ tests of gpu/ (test/gpu/*Test.cpp) run with ctest in 10-unit.
set -uo pipefail
root="${PALLAS_LSP_ROOT:?}"
bin="${PALLAS_LSP_BIN:?}"
python="${PALLAS_LSP_PYTHON:?}"
kernels="$root/test/gpu/kernels"
failures=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check() { # check NAME CONDITION-COMMAND...
  local name="$1"; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}
json_get() { # json_get FILE PYTHON-EXPRESSION-ON-d
  "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

echo "--- runner unit tests (pytest)"
check "pytest test/gpu/test_runner.py" "$python" -m pytest -q -p no:cacheprovider "$root/test/gpu/test_runner.py"
check "pytest test/gpu/test_heatmap.py" "$python" -m pytest -q -p no:cacheprovider "$root/test/gpu/test_heatmap.py"

echo "--- doctor"
"$bin" doctor >"$work/doctor.txt" 2>&1; code=$?
cat "$work/doctor.txt"
check "doctor exits 0" test $code -eq 0
check "doctor names the interpreter" grep -q "^Python ($python)" "$work/doctor.txt"
check "doctor finds JAX" grep -q "JAX [0-9]" "$work/doctor.txt"
check "doctor reports the GPU plainly" grep -Eq "no NVIDIA driver|GPU 0:|reports no GPU|not a usable CUDA driver" "$work/doctor.txt"
check "doctor names the knowledge table" grep -q "table: .*\.json" "$work/doctor.txt"

"$bin" doctor --json >"$work/doctor.json"
check "doctor --json is JSON with a probe status" \
  test "$(json_get "$work/doctor.json" "d['gpu']['status'] in ('ok','no-driver','broken-driver','init-failed','no-device')")" = True
PALLAS_LSP_LIBCUDA=/nonexistent/libcuda.so.1 "$bin" doctor --json >"$work/nodriver.json"
check "doctor: a missing driver library is no-driver" test "$(json_get "$work/nodriver.json" "d['gpu']['status']")" = no-driver
PALLAS_LSP_LIBCUDA=libm.so.6 "$bin" doctor --json >"$work/libm.json"
check "doctor: libm is not a driver" test "$(json_get "$work/libm.json" "d['gpu']['status']")" = broken-driver
"$bin" doctor --python /nonexistent/python3 >"$work/nopython.txt" 2>&1; code=$?
check "doctor: a missing Python exits 1 and says so" \
  bash -c "test $code -eq 1 && grep -q 'cannot run it' '$work/nopython.txt'"

echo "--- run"
"$bin" run "$kernels/add.py" --mode interpret --json --python "$python" >"$work/interp.json"; code=$?
check "run interpret exits 0" test $code -eq 0
check "run interpret: entry from the marker, two outputs" \
  test "$(json_get "$work/interp.json" "d['entry'], len(d['modes'][0]['outputs']), d['status']")" = "main 2 succeeded"

gpu_here="$(json_get "$work/interp.json" "any(x['platform'] in ('gpu','cuda') for x in d['environment']['devices'])")"
"$bin" run "$kernels/add.py" --entry main --mode compiled --python "$python" >"$work/compiled.txt" 2>&1; code=$?
cat "$work/compiled.txt"
# Either branch checks something: an unreadable report is a failure, not a
# silently skipped check.
check "run interpret reports the devices JAX sees" bash -c "test '$gpu_here' = True || test '$gpu_here' = False"
if [ "$gpu_here" = False ]; then
  check "run compiled without a GPU exits 1" test $code -eq 1
  check "run compiled without a GPU says why" grep -q "compute capability 9.0 or newer" "$work/compiled.txt"
elif [ "$gpu_here" = True ]; then
  check "run compiled on the GPU exits 0" test $code -eq 0
fi

"$bin" run "$kernels/add.py" --entry main --compare interpret,gpu-interpret --json --python "$python" >"$work/compare.json"; code=$?
check "run compare interpret,gpu-interpret exits 0" test $code -eq 0
check "run compare reports a difference per output" \
  test "$(json_get "$work/compare.json" "[c['comparable'] and c['max_abs_diff'] is not None for c in d['comparisons']]")" = "[True, True]"
check "run compare: a heat map per output through the binary, as large as its grid" \
  test "$(json_get "$work/compare.json" "[(h['shape'], h['grid'], len(h['abs']), len(h['abs'][0]), h['max'] == float(f\"{c['max_abs_diff']:.3g}\")) for c in d['comparisons'] for h in [c['heat_map']]]")" = "[([16, 128], [16, 64], 16, 64, True), ([16, 128], [16, 64], 16, 64, True)]"

"$bin" run "$kernels/mgpu_kernel.py" --entry main --python "$python" \
  --launch-template 'bash -c "exec env PALLAS_VIA=bash {python} {runner} {args}"' >"$work/template.txt" 2>&1; code=$?
check "run through a bash -c launch template" test $code -eq 0
check "run shows the entry's stdout" grep -q "hello from the entry" "$work/template.txt"

"$bin" run "$kernels/faults.py" --entry hang --timeout 8 --python "$python" >"$work/hang.txt" 2>&1; code=$?
check "run --timeout kills a hang (exit 1)" bash -c "test $code -eq 1 && grep -q 'timeout' '$work/hang.txt'"

"$bin" run "$kernels/add.py" --bogus >/dev/null 2>&1; code=$?
check "run: unknown option is a usage error (2)" test $code -eq 2
"$bin" run "$kernels/add.py" --entry main --python /nonexistent/python3 >/dev/null 2>&1; code=$?
check "run: a Python that cannot start is exit 2" test $code -eq 2

echo "gpu suite: $failures failure(s)"
[ $failures -eq 0 ]
