#!/usr/bin/env bash
# The one house style, checked: clang-format on every C++ file we own, then
# clang-tidy (.clang-tidy: bugprone, performance, identifier naming) on the
# product sources, using the build tree's compile_commands.json.
#   scripts/check-style.sh [BUILD_DIR]        (default: build)
#   scripts/check-style.sh --fix-format       rewrite files instead of failing
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="build"; fix=0
for a in "$@"; do case "$a" in --fix-format) fix=1 ;; *) build="$a" ;; esac; done

mapfile -t cxx < <(git ls-files '*.cpp' '*.h' | grep -vE '^test/.*/fixtures/')
if [ $fix -eq 1 ]; then clang-format-22 -i "${cxx[@]}"; exit 0; fi

rc=0
if ! clang-format-22 --dry-run -Werror "${cxx[@]}" 2>/tmp/pallas-format.$$; then
  grep -E '^[^ ].*: error:' /tmp/pallas-format.$$ | cut -d: -f1 | sort -u | sed 's/^/needs clang-format: /'
  echo "format: run 'bash scripts/check-style.sh --fix-format'"; rc=1
else
  echo "format: ${#cxx[@]} files clean"
fi
rm -f /tmp/pallas-format.$$

[ -f "$build/compile_commands.json" ] || { echo "tidy: $build/compile_commands.json missing (build first)"; exit 2; }
# Product translation units only: the tests follow the same style by review.
mapfile -t units < <(git ls-files 'analysis/*.cpp' 'server/*.cpp' 'protocol/*.cpp' 'gpu/*.cpp' |
  while read -r f; do grep -q "\"file\": \"$root/$f\"" "$build/compile_commands.json" && echo "$f"; done)
out="$(printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy-22 -p "$build" --quiet 2>&1)"
findings="$(grep -E ': (warning|error): ' <<<"$out" | sort -u)"
if [ -n "$findings" ]; then
  echo "$findings"; echo "tidy: $(wc -l <<<"$findings") finding(s) in ${#units[@]} units"; rc=1
else
  echo "tidy: ${#units[@]} units clean"
fi
exit $rc
