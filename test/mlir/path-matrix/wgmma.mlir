// The path matrix of a launch whose kernel uses wgmma: compiled on Hopper
// runs it, compiled on Blackwell lacks it, the HLO interpreter has no CPU
// lowering for it, GPU interpret mode runs it. One remark per launch.
// RUN: pallas-opt %s --pallas-path-matrix -o /dev/null 2>&1 | FileCheck %s

module {
  pallas.func def @kernel attributes {arg_names = ["a_ref", "b_ref", "o_ref", "acc"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value, %o: !pallas.value, %acc: !pallas.value):
    %0 = pallas.prim "plgpu.wgmma"(%acc, %a, %b) origins [arg, arg, arg] {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["a", "b"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value):
    // CHECK: wgmma.mlir:[[@LINE+5]]:{{[0-9]+}}: remark: path matrix of pl.pallas_call (selects compiled)
    // CHECK: note: compiled_sm90a: yes
    // CHECK: wgmma.mlir:10:{{[0-9]+}}: note: compiled_sm100a: no (wgmma_ref from plgpu.wgmma: needs Hopper sm_90a
    // CHECK: wgmma.mlir:10:{{[0-9]+}}: note: interpret: no (wgmma_ref from plgpu.wgmma: NotImplementedError: MLIR translation rule for primitive 'wgmma' not found for platform cpu)
    // CHECK: note: gpu_interpret: yes
    %l = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [acc] {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%a, %b) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    // A launch of a function that is not a Mosaic GPU kernel body has no matrix.
    %t = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [acc] {backend = "triton", body = @kernel, body_text = "kernel"}
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: remark
