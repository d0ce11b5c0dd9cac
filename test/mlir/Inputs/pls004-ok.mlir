// The call of discharge/pls004-signature.mlir with one operand for the
// one-entry arg_types: no PLS004.
module {
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.value):
    %region = pallas.closure def "region" attributes {arg_names = ["a"]} {
    ^bb0(%a: !pallas.value):
      %i = pallas.inline_mgpu(%a) origins [arg] arg_type_kinds [ref] {arg_indices = array<i64: 0>, arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64} : (!pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %a2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    %u = pallas.call_indirect %region(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    %l = pallas.launch "plgpu.kernel" call paths [compiled] interpret absent {body = @kernel, body_text = "kernel"}
    %y = pallas.call_indirect %l(%x) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
