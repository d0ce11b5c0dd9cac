// Every op of the pallas dialect parses, verifies and prints back to a form
// that parses again to the same text (custom form), and survives the
// generic form.
// RUN: pallas-opt %s | pallas-opt | FileCheck %s
// RUN: pallas-opt %s --mlir-print-op-generic | pallas-opt | FileCheck %s

// CHECK-LABEL: module attributes {pallas.path = "k.py"}
module attributes {pallas.path = "k.py"} {
  // CHECK: pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  // CHECK-NEXT: } {
  // CHECK-NEXT: %[[G:.*]] = pallas.global "pl" = "jax.experimental.pallas"
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
    %0 = pallas.global "pl" = "jax.experimental.pallas"
  }
  // CHECK: pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  // CHECK: ^bb0(%[[X:.*]]: !pallas.value, %[[O:.*]]: !pallas.ref):
  pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.ref):
    // CHECK: %[[C:.*]] = pallas.constant "1.0" {kind = "float"}
    %c = pallas.constant "1.0" {kind = "float"}
    // CHECK: %[[T:.*]] = pallas.closure "touch" attributes {arg_names = ["ref"], kind = "def"} {
    // CHECK: pallas.inline_mgpu(%{{.*}}) {arg_indices = array<i64: 0>, arg_type_kinds = ["ref"], arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64, origins = ["arg"]} : (!pallas.value) -> !pallas.value {
    // CHECK: pallas.return %{{.*}} : !pallas.value
    %t = pallas.closure "touch" attributes {arg_names = ["ref"], kind = "def"} {
    ^bb0(%r: !pallas.value):
      %i = pallas.inline_mgpu(%r) {arg_indices = array<i64: 0>, arg_type_kinds = ["ref"], arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64, origins = ["arg"]} : (!pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %r2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    // CHECK: pallas.prim "ref.__setitem__"(%[[O]], %[[C]]) {arg_indices = array<i64: 1, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value
    %s = pallas.prim "ref.__setitem__"(%o, %c) {arg_indices = array<i64: 1, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value
    // CHECK: pallas.call_indirect %[[T]](%[[O]]) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.ref) -> !pallas.value
    %u = pallas.call_indirect %t(%o) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.ref) -> !pallas.value
    // CHECK: pallas.scope "pl.run_scoped"() {allocations = ["smem"], arg_indices = array<i64>, arg_origins = ["run_scoped"], keywords = [], origins = []} : () -> !pallas.value {
    // CHECK-NEXT: ^bb0(%{{.*}}: !pallas.ref):
    %v = pallas.scope "pl.run_scoped"() {allocations = ["smem"], arg_indices = array<i64>, arg_origins = ["run_scoped"], keywords = [], origins = []} : () -> !pallas.value {
    ^bb0(%scratch: !pallas.ref):
      %w = pallas.opaque "binary_operator"(%scratch, %c) {arg_indices = array<i64: -1, -1>, origins = ["run_scoped", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value
    }
    // CHECK: pallas.if %[[C]] : !pallas.value attributes {static_cond = true} {
    // CHECK: pallas.call @helper(%[[X]]) {arg_indices = array<i64: 0>, callee_file = "h.py", keywords = ["n"], origins = ["arg"]} : (!pallas.value) -> !pallas.value
    // CHECK-NEXT: } else {
    pallas.if %c : !pallas.value attributes {static_cond = true} {
      %h = pallas.call @helper(%x) {arg_indices = array<i64: 0>, callee_file = "h.py", keywords = ["n"], origins = ["arg"]} : (!pallas.value) -> !pallas.value
    } else {
    }
    // CHECK: pallas.return{{$}}
    pallas.return
  }
  // CHECK: pallas.func @run
  pallas.func @run attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%x: !pallas.value):
    // CHECK: pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "True", paths = ["interpret_hlo"], scratch = []}
    %l = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "True", paths = ["interpret_hlo"], scratch = []}
    // CHECK: %[[B:.*]] = pallas.closure "body" attributes {arg_names = [], kind = "lambda"} {
    %b = pallas.closure "body" attributes {arg_names = [], kind = "lambda"} {
    }
    // CHECK: pallas.launch "plgpu.kernel" %[[B]] : !pallas.value {backend = "mosaic_gpu", body_text = "body", form = "decorator", interpret_source = "unknown", num_threads = 2 : i64, paths = ["compiled", "unknown"], thread_name = "wg"}
    %k = pallas.launch "plgpu.kernel" %b : !pallas.value {backend = "mosaic_gpu", body_text = "body", form = "decorator", interpret_source = "unknown", num_threads = 2 : i64, paths = ["compiled", "unknown"], thread_name = "wg"}
    // CHECK: pallas.return %{{.*}} : !pallas.value
    pallas.return %l : !pallas.value
  }
}
