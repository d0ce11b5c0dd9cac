// PLS003: a compiled kernel reaches wgmma (Hopper sm_90a only). On a
// Blackwell GPU (compute capability 10.0) that is reported; on Hopper, or
// when the GPU is unknown, it is not.
// RUN: pallas-opt %s --pallas-hardware=gpu-cc=10.0 -o /dev/null 2>&1 | FileCheck %s
// RUN: pallas-opt %s --pallas-hardware=gpu-cc=9.0 -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: pallas-opt %s --pallas-hardware -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: PLS

module {
  pallas.func def @kernel attributes {arg_names = ["a_ref", "b_ref", "o_ref", "acc"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value, %o: !pallas.value, %acc: !pallas.value):
    // CHECK: pls003-wgmma.mlir:[[@LINE+1]]:{{[0-9]+}}: warning: PLS003: `plgpu.wgmma` (primitive wgmma_ref) needs Hopper sm_90a {{.*}} but this GPU is compute capability 10.0
    %0 = pallas.prim "plgpu.wgmma"(%acc, %a, %b) origins [arg, arg, arg] {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["a", "b"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value):
    // CHECK: pls003-wgmma.mlir:[[@LINE+1]]:{{[0-9]+}}: note: execution path: compiled
    %l = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [acc] {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%a, %b) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: PLS
