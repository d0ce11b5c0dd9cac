// PLS002: a primitive other than inline_mgpu that a path cannot run: wgmma
// has no CPU lowering, so interpret=True fails; the compiled kernel is clean.
// RUN: pallas-opt %s --pallas-discharge -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e 's/"interpret_hlo"/"compiled"/' -e 's/"literal"/"absent"/' %s \
// RUN:   | pallas-opt --pallas-discharge -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPILED --allow-empty
// COMPILED-NOT: PLS

module {
  pallas.func @kernel attributes {arg_names = ["a_ref", "b_ref", "o_ref", "acc"], kind = "def"} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value, %o: !pallas.value, %acc: !pallas.value):
    // CHECK: pls002-primitive.mlir:[[@LINE+1]]:{{[0-9]+}}: error: PLS002: {{.*}}plgpu.wgmma
    %0 = pallas.prim "plgpu.wgmma"(%acc, %a, %b) {arg_indices = array<i64: 3, 0, 1>, keywords = ["", "", ""], origins = ["arg", "arg", "arg"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func @run attributes {arg_names = ["a", "b"], kind = "def"} {
  } {
  ^bb0(%a: !pallas.value, %b: !pallas.value):
    // CHECK: pls002-primitive.mlir:[[@LINE+1]]:{{[0-9]+}}: note: execution path: interpret=True
    %l = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "True", paths = ["interpret_hlo"], scratch = ["acc"]}
    %y = pallas.call_indirect %l(%a, %b) {arg_indices = array<i64: 0, 1>, keywords = ["", ""], origins = ["arg", "arg"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: PLS
