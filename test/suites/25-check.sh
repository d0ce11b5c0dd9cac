#!/usr/bin/env bash
# End-to-end tests of `pallas-lsp check` on the real binary: exit codes,
# usage errors, file discovery (virtual environments, site-packages, hidden
# and .gitignore'd paths), configuration, the four output formats (SARIF
# validated against the official 2.1.0 schema), --jobs determinism, and
# suppression, selection and annotations on a
# kernel that JAX itself fails to run (test/check/fixtures/interpret_inline.py,
# checked against JAX 0.10.2: NotImplementedError at line 15).
set -uo pipefail
root="${PALLAS_LSP_ROOT:?}"
bin="${PALLAS_LSP_BIN:?}"
python="${PALLAS_LSP_PYTHON:-$root/.venv/bin/python}"
fixtures="$root/test/check/fixtures"
work="$(mktemp -d "${TMPDIR:-/tmp}/pallas-check-e2e.XXXXXX")"
trap 'rm -rf "$work"' EXIT

passed=0; failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; shift; for line in "$@"; do echo "     $line"; done; }

# run NAME EXPECTED_RC ARGS...: runs the binary in $cwd, keeps stdout/stderr.
cwd="$work"
run() {
  local name="$1" want="$2"; shift 2
  (cd "$cwd" && "$bin" check "$@") >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    bad "$name: exit $rc, wanted $want" "args: $*" "stdout: $(head -c 600 "$work/out")" "stderr: $(head -c 600 "$work/err")"
    return 1
  fi
  return 0
}
# json_get EXPR: evaluates a Python expression over the JSON on stdout (as d).
json_get() { "$python" -c "import json,sys; d=json.load(open('$work/out')); print($1)"; }
expect_eq() { # NAME GOT WANT
  if [ "$2" == "$3" ]; then ok "$1"; else bad "$1" "got:  $2" "want: $3"; fi
}
expect_one_line_stderr() { # NAME PATTERN
  local lines; lines=$(wc -l <"$work/err")
  if [ "$lines" -eq 1 ] && grep -q -- "$2" "$work/err"; then ok "$1"; else bad "$1" "stderr: $(cat "$work/err")"; fi
}

# ---- usage errors: exit 2, one line ------------------------------------------
mkdir -p "$work/clean"; cp "$fixtures/standard_ok.py" "$work/clean/"
run "unknown option" 2 --frobnicate clean && expect_one_line_stderr "unknown option: one line" "unknown option '--frobnicate'"
run "bad format" 2 --format xml clean && expect_one_line_stderr "bad format: one line" "unknown --format 'xml'"
run "bad jobs" 2 --jobs zero clean && expect_one_line_stderr "bad jobs: one line" "--jobs needs a number"
run "missing value" 2 clean --format && expect_one_line_stderr "missing value: one line" "--format needs a value"
run "bad selector" 2 --select E501 clean && expect_one_line_stderr "bad selector: one line" "unknown rule selector 'E501'"
run "config and no-config" 2 --config x.toml --no-config clean && expect_one_line_stderr "config conflict: one line" "cannot be combined"
run "missing path" 2 does-not-exist.py && { grep -q "does-not-exist.py" "$work/err" && ok "missing path named on stderr" \
  || bad "missing path named on stderr" "stderr: $(cat "$work/err")"; }

# ---- clean files: exit 0 in every format -------------------------------------
run "clean text" 0 clean && expect_eq "clean text output" "$(cat "$work/out")" "All checks passed!"
run "clean quiet" 0 --quiet clean && expect_eq "quiet prints nothing when clean" "$(cat "$work/out")" ""
run "clean github" 0 --format github clean && expect_eq "clean github output" "$(cat "$work/out")" ""
run "clean json" 0 --format=json clean && {
  expect_eq "json summary" "$(json_get 'd["summary"]')" "{'files': 1, 'findings': 0, 'errors': 0, 'warnings': 0}"
  expect_eq "json key order as documented" "$(json_get 'list(d)')" "['version', 'jaxVersion', 'findings', 'summary', 'launches']"
  expect_eq "json version is the binary's" "$(json_get 'd["version"]')" "$("$bin" version 2>/dev/null | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -1)"
}
run "clean sarif" 0 --format sarif clean && {
  cp "$work/out" "$work/clean.sarif"
  if "$python" "$root/test/check/validate_sarif.py" "$root" "$work/clean.sarif" 2>"$work/schema"; then
    ok "clean sarif validates against the SARIF 2.1.0 schema"
  else bad "clean sarif schema" "$(cat "$work/schema")"; fi
  # Every registered rule, in the registry's order (analysis/.../Rules.def).
  registered="$("$python" -c "import re,sys; print(re.findall(r'PALLAS_RULE\(\s*\w+,\s*\"(PLS\d{3})\"', open(sys.argv[1]).read()))" "$root/analysis/include/pallas/analysis/Rules.def")"
  expect_eq "sarif rules are the registry's" "$(json_get '[r["id"] for r in d["runs"][0]["tool"]["driver"]["rules"]]')" "$registered"
  expect_eq "sarif rules have full descriptions" "$(json_get 'all(r["fullDescription"]["text"] for r in d["runs"][0]["tool"]["driver"]["rules"])')" "True"
  # One SARIF rule per code page in docs/codes (a new code brings both).
  expect_eq "sarif rules" "$(json_get '[r["id"] for r in d["runs"][0]["tool"]["driver"]["rules"]]')" \
    "$(cd "$root/docs/codes" && "$python" -c 'import glob; print(sorted(p[:-3] for p in glob.glob("PLS*.md")))')"
}

# ---- a syntax error (issue 35): reported as PLS011, an error in the exit status ----
mkdir -p "$work/broken"; cp "$fixtures/pls011_syntax_error.py" "$work/broken/"
run "syntax error" 1 --format json broken && {
  expect_eq "syntax error: PLS011 at the open call" \
    "$(json_get '[(f["code"], f["severity"], f["range"]["start"]["line"] + 1) for f in d["findings"] if f["code"] == "PLS011"][:1]')" \
    "[('PLS011', 'error', $(grep -n 'expect: PLS011' "$fixtures/pls011_syntax_error.py" | cut -d: -f1))]"
  # The launch below the broken helper is still analysed (its path matrix is there).
  expect_eq "syntax error: the launch it does not touch is still analysed" "$(json_get 'len(d.get("launches", []))')" "1"
}
run "syntax error text" 1 broken && {
  if grep -q "All checks passed" "$work/out" || ! grep -q "error\[PLS011\]" "$work/out"; then
    bad "syntax error: text output" "$(cat "$work/out")"
  else ok "syntax error: text output names PLS011"; fi
}

# ---- file discovery ------------------------------------------------------------
tree="$work/tree"
mkdir -p "$tree/.git" "$tree/pkg/sub" "$tree/venv/lib" "$tree/env/lib" "$tree/lib/site-packages" \
  "$tree/node_modules/m" "$tree/pkg/__pycache__" "$tree/.hidden" "$tree/gen" "$tree/docs"
touch "$tree/a.py" "$tree/pkg/b.py" "$tree/pkg/sub/c.py" "$tree/notes.txt"
touch "$tree/venv/lib/x.py" "$tree/env/lib/x.py" "$tree/lib/site-packages/x.py" "$tree/node_modules/m/x.py"
touch "$tree/pkg/__pycache__/x.py" "$tree/.hidden/x.py" "$tree/gen/x.py" "$tree/pkg/msg_pb2.py" "$tree/pkg/keep_pb2.py"
echo "home = /usr" >"$tree/env/pyvenv.cfg"
printf 'gen/\n*_pb2.py\n' >"$tree/.gitignore"
printf '!keep_pb2.py\n' >"$tree/pkg/.gitignore"
cwd="$tree"
run "discovery" 0 --format json . && expect_eq "walk skips venvs, site-packages, hidden and .gitignore'd" \
  "$(json_get 'd["summary"]["files"]')" "4"
run "explicit files" 0 --format json gen/x.py .hidden/x.py notes.txt && expect_eq "explicit files are always checked" \
  "$(json_get 'd["summary"]["files"]')" "3"
printf '[tool.pallas-lsp]\nextend-exclude = ["pkg/sub"]\n' >"$tree/pyproject.toml"
run "extend-exclude" 0 --format json . && expect_eq "extend-exclude from pyproject.toml" "$(json_get 'd["summary"]["files"]')" "3"
run "no-config" 0 --format json --no-config . && expect_eq "--no-config ignores pyproject.toml" "$(json_get 'd["summary"]["files"]')" "4"
printf '[tool.pallas-lsp]\nselect = "PLS001"\n' >"$tree/pyproject.toml"
run "bad config" 2 . && expect_one_line_stderr "bad config: file:line:col" "pyproject.toml:2:10: tool.pallas-lsp.select must be an array"
printf '[tool.pallas-lsp]\nselect = [\n' >"$tree/pyproject.toml"
run "invalid toml" 2 . && expect_one_line_stderr "invalid TOML: file:line" "pyproject.toml:[0-9]*:[0-9]*: invalid TOML"
run "no-config skips a broken pyproject" 0 --no-config . && ok "--no-config skips a broken pyproject.toml"
printf '[tool.pallas-lsp]\nexclude = []\n' >"$work/custom.toml"
run "--config FILE" 0 --format json --config "$work/custom.toml" . && expect_eq "--config replaces the default excludes" \
  "$(json_get 'd["summary"]["files"]')" "8"
rm "$tree/pyproject.toml"
cwd="$work"

# ---- the analysis on a kernel JAX fails to run ------------------------------
kern="$work/kern"; mkdir -p "$kern"
cp "$fixtures/interpret_inline.py" "$fixtures/standard_ok.py" "$kern/"
cwd="$kern"
run "findings json" 1 --format json . && ok "exit 1 on findings"
expect_eq "PLS001 at the inline_mgpu call (0-based line 14)" \
  "$(json_get '[(f["code"], f["range"]["start"]["line"], f["path"].rsplit("/",1)[1]) for f in d["findings"] if f["code"]=="PLS001"][:1]')" \
  "[('PLS001', 14, 'interpret_inline.py')]"
expect_eq "no finding in the standard kernel" "$(json_get 'sum(f["path"].endswith("standard_ok.py") for f in d["findings"])')" "0"
run "findings text" 1 . && grep -q '^interpret_inline.py:15:3: error\[PLS001\] ' "$work/out" && ok "text line format" || bad "text line format" "$(cat "$work/out")"
grep -q '^Found [0-9]* error' "$work/out" && ok "text summary" || bad "text summary" "$(tail -2 "$work/out")"
run "exit-zero" 0 --exit-zero . && ok "--exit-zero"
run "ignore on the command line" 0 --ignore PLS001,PLS002 . && ok "--ignore"
run "select another code" 0 --select PLS004 . && ok "--select"
run "findings github" 1 --format github . && grep -q '^::error file=interpret_inline.py,line=15,col=3,.*title=PLS001::' "$work/out" \
  && ok "github annotation" || bad "github annotation" "$(cat "$work/out")"
run "findings sarif" 1 --format sarif . && {
  cp "$work/out" "$work/findings.sarif"
  if "$python" "$root/test/check/validate_sarif.py" "$root" "$work/findings.sarif" 2>"$work/schema"; then
    ok "sarif with results validates against the schema"
  else bad "sarif with results schema" "$(cat "$work/schema")"; fi
  expect_eq "sarif result" "$(json_get '[(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in d["runs"][0]["results"] if r["ruleId"]=="PLS001"][:1]')" \
    "[('PLS001', 15)]"
}
sed -i 's/region(o_ref)  # PLS001 here/region(o_ref)  # pallas-lsp: ignore[PLS001]/' "$kern/interpret_inline.py"
run "suppression comment" 0 --select PLS001 . && ok "# pallas-lsp: ignore[PLS001]"
cp "$fixtures/interpret_inline.py" "$kern/"
printf '[tool.pallas-lsp]\nper-file-ignores = { "interpret_*.py" = ["PLS001", "PLS002"] }\n' >"$kern/pyproject.toml"
run "per-file-ignores" 0 . && ok "per-file-ignores"
printf '[tool.pallas-lsp.severity]\nPLS001 = "warning"\n' >"$kern/pyproject.toml"
run "severity override" 1 . && grep -q 'warning\[PLS001\]' "$work/out" && ok "severity override" || bad "severity override" "$(cat "$work/out")"
rm "$kern/pyproject.toml"
cwd="$work"

# ---- --jobs does not change the output ----------------------------------------
many="$work/many"; mkdir -p "$many"
for i in $(seq 1 40); do cp "$fixtures/interpret_inline.py" "$many/k$i.py"; cp "$fixtures/standard_ok.py" "$many/s$i.py"; done
# Both runs must find the 40 failing kernels (exit 1, non-empty JSON with 40
# PLS001 findings): two empty or crashed runs would otherwise compare equal.
(cd "$many" && "$bin" check --format json --jobs 1 . >"$work/j1"); rc1=$?
(cd "$many" && "$bin" check --format json --jobs 8 . >"$work/j8"); rc8=$?
pls001() { "$python" -c "import json,sys; print(sum(f['code']=='PLS001' for f in json.load(open(sys.argv[1]))['findings']))" "$1" 2>/dev/null; }
if [ "$rc1" -ne 1 ] || [ "$rc8" -ne 1 ]; then bad "--jobs runs exit 1 on findings" "--jobs 1: exit $rc1, --jobs 8: exit $rc8"
elif [ "$(pls001 "$work/j1")" != 40 ] || [ "$(pls001 "$work/j8")" != 40 ]; then
  bad "--jobs runs report the 40 PLS001 findings" "--jobs 1: $(pls001 "$work/j1"), --jobs 8: $(pls001 "$work/j8")"
elif cmp -s "$work/j1" "$work/j8"; then ok "--jobs 1 and --jobs 8 give identical output"
else bad "--jobs determinism" "$(diff "$work/j1" "$work/j8" | head)"; fi

# ---- the rule registry agrees with the docs, the README tables and the fixtures ----
if PALLAS_LSP_BIN="$bin" "$python" -m pytest -q -p no:cacheprovider "$root/test/rules" >"$work/rules" 2>&1; then
  ok "rule registry: docs, tables, fixtures and sources agree (test/rules)"
else
  bad "rule registry (test/rules)" "$(tail -n 25 "$work/rules")"
fi

# Jupyter notebooks (.ipynb): cells checked as one module, findings per cell.
if PALLAS_LSP_BIN="$bin" "$python" -m pytest -q -p no:cacheprovider "$root/test/check/test_notebook_check.py" >"$work/nb" 2>&1; then
  ok "notebooks: checked cell by cell ($(tail -n1 "$work/nb"))"
else bad "notebooks" "$(tail -n 30 "$work/nb")"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
