// PLS009: plgpu.kernel with more warpgroups than Mosaic GPU allows (an oracle
// fixture JAX 0.10.2 rejects while tracing) and its twin within the limit.
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/compiled_launch_num_threads_too_many.py \
// RUN:   | pallas-opt --pallas-launch-config -o /dev/null 2>&1 | FileCheck %s
// CHECK: compiled_launch_num_threads_too_many.py:23:10: error: PLS009: launch configuration
// CHECK-SAME: At most 16 are supported
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/compiled_launch_num_threads_ok.py \
// RUN:   | pallas-opt --pallas-launch-config -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: PLS009
