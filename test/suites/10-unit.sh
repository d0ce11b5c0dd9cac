#!/usr/bin/env bash
# GoogleTest unit tests and the LSP transcript tests registered with ctest.
# Skipped tests (only for what the machine lacks: a GPU, or JAX seeing one)
# are printed as "SKIP: <test>: <reason>" from ctest's JUnit report.
set -uo pipefail
cd "$PALLAS_LSP_ROOT"
junit="$PALLAS_LSP_ROOT/build/ctest-junit.xml"
rm -f "$junit"
ctest --test-dir build --output-on-failure --no-tests=error -j 2 --output-junit "$junit"
rc=$?
"${PALLAS_LSP_PYTHON:-python3}" - "$junit" <<'PY' || rc=1
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
  if case.find("skipped") is None:
    continue
  out = (case.findtext("system-out") or "").splitlines()
  # GTEST_SKIP() << reason prints "file:line: Skipped" then the reason.
  at = next((i for i, l in enumerate(out) if l.rstrip().endswith("Skipped")), None)
  reason = out[at + 1].strip() if at is not None and at + 1 < len(out) else "(no reason given)"
  print(f"SKIP: {case.get('name')}: {reason}")
PY
exit $rc
