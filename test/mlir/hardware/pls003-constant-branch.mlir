// PLS003 follows the branch a module constant decides: `if USE_TCGEN05:`
// with the global resolved to the constant True takes the tcgen05 branch
// only, so on Blackwell (10.0) the Hopper-only wgmma of the other branch is
// no requirement, and on Hopper (9.0) tcgen05's is.
// RUN: pallas-opt %s --pallas-hardware=gpu-cc=10.0 -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: pallas-opt %s --pallas-hardware=gpu-cc=9.0 -o /dev/null 2>&1 | FileCheck %s
// NONE-NOT: PLS

module {
  pallas.func def @kernel attributes {arg_names = ["a_ref", "b_ref", "o_ref", "acc"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value, %o: !pallas.value, %acc: !pallas.value):
    %c = pallas.global "USE_TCGEN05" = "const:True"
    pallas.if %c : !pallas.value {
      // CHECK: pls003-constant-branch.mlir:[[@LINE+1]]:{{[0-9]+}}: warning: PLS003: `plgpu.tcgen05_mma` (primitive tcgen05_mma) needs Blackwell
      %0 = pallas.prim "plgpu.tcgen05_mma"(%acc, %a, %b) origins [arg, arg, arg] {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    } else {
      %1 = pallas.prim "plgpu.wgmma"(%acc, %a, %b) origins [arg, arg, arg] {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    }
  }
  pallas.func def @run attributes {arg_names = ["a", "b"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value):
    %l = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [acc] {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%a, %b) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: PLS
