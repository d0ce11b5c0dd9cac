// PLS004: an inline_mgpu call whose operands do not match its declared
// arg_types (two operands for a one-entry tuple); with a matching call
// (one operand) there is no finding.
// RUN: pallas-opt %s --pallas-inline-mgpu-signature -o /dev/null 2>&1 | FileCheck %s
// RUN: pallas-opt %S/../Inputs/pls004-ok.mlir --pallas-inline-mgpu-signature -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: PLS

module {
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.value):
    %region = pallas.closure def "region" attributes {arg_names = ["a", "b"]} {
    ^bb0(%a: !pallas.value, %b: !pallas.value):
      %i = pallas.inline_mgpu(%a, %b) origins [arg, arg] arg_type_kinds [ref] {arg_indices = array<i64: 0, 1>, arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64} : (!pallas.value, !pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %a2: !pallas.value, %b2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    // CHECK: pls004-signature.mlir:[[@LINE+1]]:{{[0-9]+}}: error: PLS004:
    %u = pallas.call_indirect %region(%x, %o) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    %l = pallas.launch "plgpu.kernel" call paths [compiled] interpret absent {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK-NOT: PLS
