// The pass options stand for the ProjectOptions: `assume-path=interpret`
// judges a compiled launch as if interpret=True were chosen (`check
// --assume-path`), so the inline_mgpu call is reported; without it the
// compiled launch is clean.
// RUN: pallas-opt %s --pallas-discharge=assume-path=interpret -o /dev/null 2>&1 | FileCheck %s
// RUN: pallas-opt %s --pallas-discharge -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AS-WRITTEN --allow-empty
// AS-WRITTEN-NOT: PLS

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
    // CHECK: assume-path.mlir:[[@LINE+1]]:{{[0-9]+}}: {{error|warning}}: PLS001: The inline_mgpu region `touch` cannot run on interpret=True
    %u = pallas.call_indirect %touch(%o) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    %l = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [] {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
