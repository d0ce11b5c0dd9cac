// A kernel that only loads and stores Refs runs on every path: every
// verdict of its matrix is yes. A module without a launch has no matrix.
// RUN: pallas-opt %s --pallas-path-matrix -o /dev/null 2>&1 | FileCheck %s
// RUN: pallas-opt %S/../Inputs/pls004-ok.mlir --pallas-path-matrix -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KERNEL-API
// RUN: echo 'module {}' | pallas-opt --pallas-path-matrix -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: remark

module {
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.value):
    %e = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value
    %v = pallas.prim "ref.__getitem__"(%x, %e) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value
    %s = pallas.prim "ref.__setitem__"(%o, %e, %v) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    // CHECK: clean.mlir:[[@LINE+5]]:{{[0-9]+}}: remark: path matrix of pl.pallas_call (selects compiled interpret_hlo)
    // CHECK: note: compiled_sm90a: yes
    // CHECK: note: compiled_sm100a: yes
    // CHECK: note: interpret: yes
    // CHECK: note: gpu_interpret: yes
    %l = pallas.launch "pl.pallas_call" call paths [compiled, interpret_hlo] interpret param scratch [] {body = @kernel, body_text = "kernel", interpret_text = "debug"}
    %y = pallas.call_indirect %l(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: : no
// The plgpu.kernel launch of Inputs/pls004-ok.mlir has a matrix too; its
// inline_mgpu region cannot be interpreted.
// KERNEL-API: remark: path matrix of plgpu.kernel (selects compiled)
// KERNEL-API: note: interpret: no (inline_mgpu_p
