// Every op of the pallas dialect parses, verifies and prints back to a form
// that parses again to the same text (custom form), and survives the
// generic form.
// RUN: pallas-opt %s | pallas-opt | FileCheck %s
// RUN: pallas-opt %s --mlir-print-op-generic | pallas-opt | FileCheck %s

// CHECK-LABEL: module attributes {pallas.path = "k.py"}
module attributes {pallas.path = "k.py"} {
  // CHECK: pallas.func module @__module__.0 attributes {arg_names = []} {
  // CHECK-NEXT: } {
  // CHECK-NEXT: %[[G:.*]] = pallas.global "pl" = "jax.experimental.pallas"
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
    %0 = pallas.global "pl" = "jax.experimental.pallas"
  }
  // CHECK: pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  // CHECK: ^bb0(%[[X:.*]]: !pallas.value, %[[O:.*]]: !pallas.ref):
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%x: !pallas.value, %o: !pallas.ref):
    // CHECK: %[[C:.*]] = pallas.constant float "1.0"
    %c = pallas.constant float "1.0"
    // CHECK: %[[T:.*]] = pallas.closure def "touch" attributes {arg_names = ["ref"]} {
    // CHECK: pallas.inline_mgpu(%{{.*}}) origins [arg] arg_type_kinds [ref] {arg_indices = array<i64: 0>, arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64} : (!pallas.value) -> !pallas.value {
    // CHECK: pallas.return %{{.*}} : !pallas.value
    %t = pallas.closure def "touch" attributes {arg_names = ["ref"]} {
    ^bb0(%r: !pallas.value):
      %i = pallas.inline_mgpu(%r) origins [arg] arg_type_kinds [ref] {arg_indices = array<i64: 0>, arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64} : (!pallas.value) -> !pallas.value {
      ^bb0(%ctx: !pallas.value, %r2: !pallas.value):
      }
      pallas.return %i : !pallas.value
    }
    // CHECK: pallas.prim "ref.__setitem__"(%[[O]], %[[C]]) origins [arg, value] {arg_indices = array<i64: 1, -1>, keywords = ["", ""]} : (!pallas.ref, !pallas.value) -> !pallas.value
    %s = pallas.prim "ref.__setitem__"(%o, %c) origins [arg, value] {arg_indices = array<i64: 1, -1>, keywords = ["", ""]} : (!pallas.ref, !pallas.value) -> !pallas.value
    // CHECK: pallas.call_indirect %[[T]](%[[O]]) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value, !pallas.ref) -> !pallas.value
    %u = pallas.call_indirect %t(%o) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value, !pallas.ref) -> !pallas.value
    // CHECK: pallas.scope "pl.run_scoped"() origins [] arg_origins [run_scoped] allocations [smem] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value {
    // CHECK-NEXT: ^bb0(%{{.*}}: !pallas.ref):
    %v = pallas.scope "pl.run_scoped"() origins [] arg_origins [run_scoped] allocations [smem] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value {
    ^bb0(%scratch: !pallas.ref):
      %w = pallas.opaque "binary_operator"(%scratch, %c) origins [run_scoped, value] {arg_indices = array<i64: -1, -1>} : (!pallas.ref, !pallas.value) -> !pallas.value
    }
    // CHECK: pallas.if %[[C]] : !pallas.value attributes {static_cond = true} {
    // CHECK: pallas.call @helper(%[[X]]) origins [arg] {arg_indices = array<i64: 0>, callee_file = "h.py", keywords = ["n"]} : (!pallas.value) -> !pallas.value
    // CHECK-NEXT: } else {
    pallas.if %c : !pallas.value attributes {static_cond = true} {
      %h = pallas.call @helper(%x) origins [arg] {arg_indices = array<i64: 0>, callee_file = "h.py", keywords = ["n"]} : (!pallas.value) -> !pallas.value
    } else {
    }
    // CHECK: pallas.return{{$}}
    pallas.return
  }
  // CHECK: pallas.func def @run
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%x: !pallas.value):
    // CHECK: pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "True"}
    %l = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "True"}
    // CHECK: %[[B:.*]] = pallas.closure lambda "body" attributes {arg_names = []} {
    %b = pallas.closure lambda "body" attributes {arg_names = []} {
    }
    // CHECK: pallas.launch "plgpu.kernel" decorator %[[B]] : !pallas.value paths [compiled, unknown] interpret unknown {backend = "mosaic_gpu", body_text = "body", num_threads = 2 : i64, thread_name = "wg"}
    %k = pallas.launch "plgpu.kernel" decorator %b : !pallas.value paths [compiled, unknown] interpret unknown {backend = "mosaic_gpu", body_text = "body", num_threads = 2 : i64, thread_name = "wg"}
    // CHECK: pallas.return %{{.*}} : !pallas.value
    pallas.return %l : !pallas.value
  }
}
