// PLS001: a kernel that calls an inline_mgpu region with a kernel Ref,
// launched with interpret=True: the HLO interpreter discharges the Ref and
// inline_mgpu_p's discharge rule raises.
// RUN: pallas-opt %s --pallas-discharge -o /dev/null 2>&1 | FileCheck %s
// The same kernel compiled (interpret absent) is clean:
// RUN: sed -e 's/paths \[interpret_hlo\]/paths [compiled]/' -e 's/interpret literal/interpret absent/' %s \
// RUN:   | pallas-opt --pallas-discharge -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPILED --allow-empty
// COMPILED-NOT: PLS

module {
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.value):
    %touch = pallas.closure def "touch" attributes {arg_names = ["ref"]} {
    ^bb0(%r: !pallas.value):
      %i = pallas.inline_mgpu(%r) origins [arg] arg_type_kinds [ref] {arg_indices = array<i64: 0>, arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64} : (!pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %r2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    // CHECK: pls001-interpret.mlir:[[@LINE+1]]:{{[0-9]+}}: error: PLS001: The inline_mgpu region `touch` cannot run on interpret=True (HLO interpreter): JAX {{[0-9.]+}} will raise NotImplementedError: inline_mgpu_p does not support discharge.
    %u = pallas.call_indirect %touch(%o) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    // CHECK: pls001-interpret.mlir:[[@LINE+1]]:{{[0-9]+}}: note: execution path: interpret=True (HLO interpreter)
    %l = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "True"}
    %y = pallas.call_indirect %l(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
// CHECK: note: call chain: kernel
// CHECK-NOT: PLS
