// PLS002: a primitive other than inline_mgpu that a path cannot run: wgmma
// has no CPU lowering, so interpret=True fails; the compiled kernel is clean.
// RUN: pallas-opt %s --pallas-discharge -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e 's/paths \[interpret_hlo\]/paths [compiled]/' -e 's/interpret literal/interpret absent/' %s \
// RUN:   | pallas-opt --pallas-discharge -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPILED --allow-empty
// COMPILED-NOT: PLS

module {
  pallas.func def @kernel attributes {arg_names = ["a_ref", "b_ref", "o_ref", "acc"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value, %o: !pallas.value, %acc: !pallas.value):
    // CHECK: pls002-primitive.mlir:[[@LINE+1]]:{{[0-9]+}}: error: PLS002: {{.*}}plgpu.wgmma
    %0 = pallas.prim "plgpu.wgmma"(%acc, %a, %b) origins [arg, arg, arg] {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["a", "b"]} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value):
    // CHECK: pls002-primitive.mlir:[[@LINE+1]]:{{[0-9]+}}: note: execution path: interpret=True
    %l = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [acc] {body = @kernel, body_text = "kernel", interpret_text = "True"}
    %y = pallas.call_indirect %l(%a, %b) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: PLS
