#!/usr/bin/env bash
# gpu/device-check.sh: the GPU half of the runner's checks, for a machine with
# a Hopper (sm_90) or newer NVIDIA GPU and a CUDA jaxlib. At most ~5 minutes.
# Prints a pass/fail table; exits 0 only when no row failed.
#
#   gpu/device-check.sh
#
# Environment:
#   PALLAS_LSP_PYTHON  Python with JAX and its CUDA plugin (pip install 'jax[cuda13]');
#                      default .venv/bin/python, else python3
#   PALLAS_LSP_BIN     the pallas-lsp binary; default build/server/pallas-lsp. Without it
#                      the runs call gpu/runner/pallas_lsp_runner.py directly (same
#                      runner, same result document) and the doctor row is skipped.
#
# Rows: the GPU is visible; `pallas-lsp doctor` finds it; JAX sees a GPU with
# compute capability >= 9.0; a pallas_call compiled; a plgpu.kernel compiled
# (its own interpret=True forced off); an inline_mgpu kernel compiled with the
# right numbers, and the same kernel failing under interpret (what PLS001/2
# predict); compare compiled vs interpret with a small difference.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kernels="$root/test/gpu/kernels"
runner="$root/gpu/runner/pallas_lsp_runner.py"
python="${PALLAS_LSP_PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"; else python="python3"; fi
fi
bin="${PALLAS_LSP_BIN:-$root/build/server/pallas-lsp}"
[ -x "$bin" ] && "$bin" version >/dev/null 2>&1 || bin=""
deadline=$(( $(date +%s) + 285 ))
per_run=90
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rows=(); passed=0; failed=0; skipped=0
row() { # row STATUS NAME DETAIL
  rows+=("$(printf '%-5s %-44s %s' "$1" "$2" "$3")")
  case "$1" in PASS) passed=$((passed + 1));; FAIL) failed=$((failed + 1));; *) skipped=$((skipped + 1));; esac
  printf '%-5s %-44s %s\n' "$1" "$2" "$3" >&2
}
out_of_time() { [ "$(date +%s)" -ge "$deadline" ]; }

# run_kernel OUT FILE ARGS...: one run, its result document in OUT (JSON).
run_kernel() {
  local out="$1" file="$2"; shift 2
  if [ -n "$bin" ]; then
    "$bin" run "$file" --json --quiet --timeout "$per_run" --python "$python" --runs 3 "$@" >"$out" 2>"$out.err"
  else
    timeout -k 5 "$per_run" "$python" "$runner" --file "$file" --runs 3 --result-stdout "$@" \
      2>"$out.err" | tail -n 1 >"$out"
  fi
  [ -s "$out" ] || echo '{"ok": false, "message": "no result (see stderr)"}' >"$out"
}
# judge OUT PYTHON-EXPR: prints "PASS detail" or "FAIL detail"; d is the document.
judge() {
  "$python" - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as exc:
    print(f"FAIL unreadable result: {exc}"); sys.exit()
def why(d):
    if d.get("setup_error"):
        return d["setup_error"]["type"] + ": " + d["setup_error"]["message"]
    for m in d.get("modes", []):
        if m.get("error"):
            return m["mode"] + ": " + m["error"]["type"] + ": " + m["error"]["message"]
    return d.get("message", "")
def timing(d):
    parts = []
    for m in d.get("modes", []):
        t = m.get("timing") or {}
        if t.get("run_s_median") is not None:
            parts.append(f"{m['mode']} compile {t['compile_s']:.2f}s run {t['run_s_median']*1e3:.3f}ms")
    return "; ".join(parts)
try:
    ok, detail = eval(sys.argv[2], {"d": d, "why": why, "timing": timing})
except Exception as exc:
    ok, detail = False, f"{type(exc).__name__}: {exc}; {why(d)}"
print(("PASS " if ok else "FAIL ") + " ".join(str(detail).split())[:220])
PY
}
check() { # check NAME OUT EXPR
  local verdict; verdict="$(judge "$2" "$3")"
  row "${verdict%% *}" "$1" "${verdict#* }"
}

echo "pallas-lsp device check: python=$python bin=${bin:-none (runner called directly)}" >&2

# 1. The GPU is visible to the driver.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >"$work/smi" 2>&1 && grep -q "^GPU" "$work/smi"; then
  row PASS "nvidia-smi lists a GPU" "$(head -n 1 "$work/smi")"
else
  row FAIL "nvidia-smi lists a GPU" "no NVIDIA GPU visible ($(head -c 120 "$work/smi" 2>/dev/null || echo 'nvidia-smi not found')): this check needs a Hopper or newer GPU"
fi

# 2. pallas-lsp doctor (the C++ probe through dlopen, and the Python side).
if [ -n "$bin" ]; then
  "$bin" doctor --json --python "$python" >"$work/doctor.json" 2>"$work/doctor.err"
  check "pallas-lsp doctor: capable GPU" "$work/doctor.json" \
    "(d['gpu']['status'] == 'ok' and d['gpu']['mosaic_gpu_capable'], d['gpu']['summary'])"
else
  row SKIP "pallas-lsp doctor: capable GPU" "no runnable pallas-lsp binary at ${PALLAS_LSP_BIN:-build/server/pallas-lsp}"
fi

# 3. JAX sees a GPU that Mosaic GPU supports.
"$python" "$runner" --doctor --result-stdout 2>"$work/env.err" | tail -n 1 >"$work/env.json"
check "JAX sees a GPU with cc >= 9.0" "$work/env.json" \
  "(any(x.get('compute_capability') and tuple(map(int, x['compute_capability'].split('.'))) >= (9, 0) for x in d['environment']['devices']), 'jax ' + str(d['environment']['jax']) + ' ' + str(d['environment']['cuda_plugins']) + ' ' + ', '.join(x['kind'] + ' cc ' + str(x.get('compute_capability')) for x in d['environment']['devices']))"

# 4-8. Runs.
cases=(
  "compiled pallas_call|$kernels/add.py|--entry main --mode compiled|(d['ok'], timing(d) if d['ok'] else why(d))"
  "compiled plgpu.kernel (interpret forced off)|$kernels/mgpu_kernel.py|--entry main --mode compiled|(d['ok'], timing(d) if d['ok'] else why(d))"
  "compiled inline_mgpu kernel|$kernels/inline_mgpu_splat.py|--entry main --mode compiled|(d['ok'] and abs(d['modes'][0]['outputs'][0]['sum'] - 8320.0) < 1e-3, timing(d) + ' sum=' + str(d['modes'][0]['outputs'][0].get('sum')) if d['ok'] else why(d))"
  "inline_mgpu under interpret fails|$kernels/inline_mgpu_splat.py|--entry main --mode interpret|(not d['ok'] and 'inline_mgpu' in why(d), why(d))"
  "compare compiled vs interpret|$kernels/add.py|--entry main --mode compare --compare compiled,interpret|(d['ok'] and all(c['comparable'] and c['max_rel_diff'] is not None and c['max_rel_diff'] < 1e-5 and c['heat_map']['grid'] == [16, 64] for c in d['comparisons']), '; '.join(c['path'] + ' max|a-b|=' + str(c['max_abs_diff']) + ' rel=' + str(c['max_rel_diff']) for c in d['comparisons']) if d['ok'] else why(d))"
)
i=0
for case in "${cases[@]}"; do
  IFS='|' read -r name file args expr <<<"$case"
  i=$((i + 1))
  if out_of_time; then row SKIP "$name" "out of time (5 minute budget)"; continue; fi
  # shellcheck disable=SC2086 # args are fixed words above
  run_kernel "$work/run$i.json" "$file" $args
  check "$name" "$work/run$i.json" "$expr"
done

echo
echo "pallas-lsp device check"
printf '%-5s %-44s %s\n' "RESULT" "CHECK" "DETAIL"
printf '%s\n' "${rows[@]}"
echo "passed $passed, failed $failed, skipped $skipped"
[ "$failed" -eq 0 ]
