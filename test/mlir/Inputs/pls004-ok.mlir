// The call of discharge/pls004-signature.mlir with one operand for the
// one-entry arg_types: no PLS004.
module {
  pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.value):
    %region = pallas.closure "region" attributes {arg_names = ["a"], kind = "def"} {
    ^bb0(%a: !pallas.value):
      %i = pallas.inline_mgpu(%a) {arg_indices = array<i64: 0>, arg_type_kinds = ["ref"], arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64, origins = ["arg"]} : (!pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %a2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    %u = pallas.call_indirect %region(%x) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value
  }
  pallas.func @run attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%x: !pallas.value):
    %l = pallas.launch "plgpu.kernel" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "absent", paths = ["compiled"]}
    %y = pallas.call_indirect %l(%x) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value
    pallas.return %y : !pallas.value
  }
}
