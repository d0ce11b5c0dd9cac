// PLS007 (a swizzle JAX does not accept) and PLS008 (a TMA copy whose GMEM
// rows are not 16-byte aligned), each beside the near-miss twin JAX 0.10.2
// lowers; all four are oracle fixtures.
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_swizzle_16.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=SWZ
// SWZ: mosaic_swizzle_16.py:15:45: error: PLS007: plgpu.SwizzleTransform(16) is not a swizzle JAX accepts
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_swizzle_32_ok.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_copy_gmem_stride.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: mosaic_copy_gmem_stride.py:21:10: error: PLS008: The copy of input 0's block (64, 100) float16 reads rows 200 bytes apart in GMEM
// RUN: pallas-lsp mlir %S/../../oracle/fixtures/mosaic_copy_gmem_stride_ok.py \
// RUN:   | pallas-opt --pallas-mosaic-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: PLS00{{[5-9]}}
