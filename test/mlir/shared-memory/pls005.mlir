// PLS005 on the module the front end prints for an oracle fixture JAX 0.10.2
// rejects (two 128 KiB buffers in one run_scoped) and on its twin that fits
// (sibling scopes share their memory). pallas-opt reads the shapes from the
// Python file the module's locations name.
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/compiled_smem_run_scoped_nested.py \
// RUN:   | pallas-opt --pallas-shared-memory -o /dev/null 2>&1 | FileCheck %s
// CHECK: compiled_smem_run_scoped_nested.py:28:10: error: PLS005: This launch needs 262,144 B of shared memory, over the 232,448 B limit
// CHECK-SAME: smem_bytes=262144 > max_smem_bytes=232448
// CHECK: note: execution path: compiled (Mosaic GPU)
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/compiled_smem_run_scoped_siblings_ok.py \
// RUN:   | pallas-opt --pallas-shared-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: PLS005
