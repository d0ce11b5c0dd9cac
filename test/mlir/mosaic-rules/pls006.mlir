// PLS006: a WGMMA accumulator wider than one call covers (an oracle fixture
// JAX 0.10.2 rejects when lowering for CUDA) and its twin at the limit.
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_wgmma_n_over_256.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s
// CHECK: mosaic_wgmma_n_over_256.py:21:5: error: PLS006: This plgpu.wgmma computes 320 accumulator columns
// CHECK-SAME: N must be a multiple of 8 and <= 256, got: 320
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_wgmma_n_256_ok.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: PLS006
