// What the front end prints for a Python file (`pallas-lsp mlir`) parses in
// pallas-opt, verifies, and prints the same text again (with locations).
// RUN: pallas-lsp mlir %S/../Inputs/frontend_kernel.py > %t.lowered.mlir
// RUN: pallas-opt %t.lowered.mlir --mlir-print-debuginfo > %t.once.mlir
// RUN: pallas-opt %t.once.mlir --mlir-print-debuginfo > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: FileCheck %s < %t.once.mlir
// CHECK-DAG: pallas.func def @kernel
// CHECK-DAG: pallas.scope "pl.run_scoped"
// CHECK-DAG: pallas.inline_mgpu
// CHECK-DAG: pallas.call @scale
// CHECK-DAG: pallas.launch "pl.pallas_call"  
// CHECK-DAG: loc({{.*}}frontend_kernel.py":{{[0-9]+}}:{{[0-9]+}})
