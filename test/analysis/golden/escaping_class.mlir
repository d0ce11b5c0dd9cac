module attributes {pallas.path = "GOLDEN/escaping_class.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/escaping_class.py":5:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/escaping_class.py":6:1)
  pallas.func method @Settings.__init__ attributes {arg_names = ["self"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":10:3)):
    %0 = pallas.constant bool "False" loc("GOLDEN/escaping_class.py":11:22)
    %1 = pallas.opaque "setattr"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, pallas.attribute = "interpret"} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":11:5)
  } loc("GOLDEN/escaping_class.py":10:3)
  pallas.func method @Fixed.__init__ attributes {arg_names = ["self"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":15:3)):
    %0 = pallas.constant bool "False" loc("GOLDEN/escaping_class.py":16:22)
    %1 = pallas.opaque "setattr"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, pallas.attribute = "interpret"} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":16:5)
  } loc("GOLDEN/escaping_class.py":15:3)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
    %0 = pallas.opaque "class"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/escaping_class.py":19:1)
  } loc("GOLDEN/escaping_class.py":19:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
    %0 = pallas.opaque "list"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/escaping_class.py":23:12)
  } loc("GOLDEN/escaping_class.py":23:1)
  pallas.func def @register attributes {arg_names = ["cls"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":26:1)):
    %0 = pallas.global "REGISTRY" = "?" loc("GOLDEN/escaping_class.py":27:3)
    %1 = pallas.global "REGISTRY" = "?" loc("GOLDEN/escaping_class.py":27:3)
    %2 = pallas.prim "value.append"(%1) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":27:3)
    %3 = pallas.call_indirect %2(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":27:3)
  } loc("GOLDEN/escaping_class.py":26:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
    %0 = pallas.global "Settings" = "class:Settings" loc("GOLDEN/escaping_class.py":30:10)
    %1 = pallas.call @register(%0) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":30:1)
  } loc("GOLDEN/escaping_class.py":30:1)
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":33:1), %arg1: !pallas.value loc("GOLDEN/escaping_class.py":33:1)):
    %0 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/escaping_class.py":34:22)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":34:16)
    %2 = pallas.constant int "1" loc("GOLDEN/escaping_class.py":34:29)
    %3 = pallas.opaque "binary_operator"(%1, %2) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":34:16)
    %4 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/escaping_class.py":34:9)
    %5 = pallas.prim "ref.__setitem__"(%arg1, %4, %3) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":34:3)
  } loc("GOLDEN/escaping_class.py":33:1)
  pallas.func module @__module__.5 attributes {arg_names = []} {
  } {
    %0 = pallas.global "Settings" = "class:Settings" loc("GOLDEN/escaping_class.py":37:12)
    %1 = pallas.call_indirect %0() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":37:12)
  } loc("GOLDEN/escaping_class.py":37:1)
  pallas.func module @__module__.6 attributes {arg_names = []} {
  } {
    %0 = pallas.global "Fixed" = "class:Fixed" loc("GOLDEN/escaping_class.py":38:9)
    %1 = pallas.call_indirect %0() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":38:9)
  } loc("GOLDEN/escaping_class.py":38:1)
  pallas.func module @__module__.7 attributes {arg_names = []} {
  } {
    %0 = pallas.global "Derived" = "class:Derived" loc("GOLDEN/escaping_class.py":39:11)
    %1 = pallas.call_indirect %0() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":39:11)
  } loc("GOLDEN/escaping_class.py":39:1)
  pallas.func def @escaped attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":42:1)):
    %0 = pallas.prim "ref.shape"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":43:64)
    %1 = pallas.prim "ref.dtype"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":43:73)
    %2 = pallas.prim "jax.ShapeDtypeStruct"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":43:43)
    %3 = pallas.global "SETTINGS" = "?" loc("GOLDEN/escaping_class.py":44:35)
    %4 = pallas.prim "value.interpret"(%3) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":44:35)
    %5 = pallas.launch "pl.pallas_call" call paths [unknown] interpret unknown scratch [] {body = @kernel, body_text = "kernel", interpret_text = "SETTINGS.interpret", pallas.mesh_axes = [""]} loc("GOLDEN/escaping_class.py":43:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":43:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/escaping_class.py":43:3)
  } loc("GOLDEN/escaping_class.py":42:1)
  pallas.func def @kept attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":47:1)):
    %0 = pallas.prim "ref.shape"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":48:64)
    %1 = pallas.prim "ref.dtype"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":48:73)
    %2 = pallas.prim "jax.ShapeDtypeStruct"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":48:43)
    %3 = pallas.global "FIXED" = "?" loc("GOLDEN/escaping_class.py":49:35)
    %4 = pallas.prim "value.interpret"(%3) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":49:35)
    %5 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @kernel, body_text = "kernel", interpret_text = "FIXED.interpret"} loc("GOLDEN/escaping_class.py":48:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":48:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/escaping_class.py":48:3)
  } loc("GOLDEN/escaping_class.py":47:1)
  pallas.func def @inherited attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/escaping_class.py":52:1)):
    %0 = pallas.prim "ref.shape"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":53:64)
    %1 = pallas.prim "ref.dtype"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":53:73)
    %2 = pallas.prim "jax.ShapeDtypeStruct"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":53:43)
    %3 = pallas.global "DERIVED" = "?" loc("GOLDEN/escaping_class.py":54:35)
    %4 = pallas.prim "value.interpret"(%3) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":54:35)
    %5 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @kernel, body_text = "kernel", interpret_text = "DERIVED.interpret"} loc("GOLDEN/escaping_class.py":53:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/escaping_class.py":53:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/escaping_class.py":53:3)
  } loc("GOLDEN/escaping_class.py":52:1)
} loc("GOLDEN/escaping_class.py":1:1)
