module attributes {pallas.path = "GOLDEN/nonlocal_rebind.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nonlocal_rebind.py":5:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nonlocal_rebind.py":6:1)
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/nonlocal_rebind.py":9:1), %arg1: !pallas.value loc("GOLDEN/nonlocal_rebind.py":9:1)):
    %0 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":10:22)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":10:16)
    %2 = pallas.constant int "1" loc("GOLDEN/nonlocal_rebind.py":10:29)
    %3 = pallas.opaque "binary_operator"(%1, %2) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":10:16)
    %4 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":10:9)
    %5 = pallas.prim "ref.__setitem__"(%arg1, %4, %3) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":10:3)
  } loc("GOLDEN/nonlocal_rebind.py":9:1)
  pallas.func def @plain attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/nonlocal_rebind.py":13:1)):
    %0 = pallas.constant bool "False" loc("GOLDEN/nonlocal_rebind.py":14:15)
    %1 = pallas.closure def "enable" attributes {arg_names = []} {
      %9 = pallas.constant bool "True" loc("GOLDEN/nonlocal_rebind.py":18:17)
    } loc("GOLDEN/nonlocal_rebind.py":16:3)
    %2 = pallas.call_indirect %1() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":20:3)
    %3 = pallas.constant bool "True" loc("GOLDEN/nonlocal_rebind.py":18:17)
    %4 = pallas.prim "ref.shape"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":21:64)
    %5 = pallas.prim "ref.dtype"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":21:73)
    %6 = pallas.prim "jax.ShapeDtypeStruct"(%4, %5) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":21:43)
    %7 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "interpret"} loc("GOLDEN/nonlocal_rebind.py":21:10)
    %8 = pallas.call_indirect %7(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":21:10)
    pallas.return %8 : !pallas.value loc("GOLDEN/nonlocal_rebind.py":21:3)
  } loc("GOLDEN/nonlocal_rebind.py":13:1)
  pallas.func def @conditional attributes {arg_names = ["x", "verbose"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/nonlocal_rebind.py":25:1), %arg1: !pallas.value loc("GOLDEN/nonlocal_rebind.py":25:1)):
    %0 = pallas.constant bool "False" loc("GOLDEN/nonlocal_rebind.py":26:15)
    %1 = pallas.closure def "enable" attributes {arg_names = []} {
      %9 = pallas.constant bool "True" loc("GOLDEN/nonlocal_rebind.py":30:17)
      pallas.if %arg1 : !pallas.value {
        %12 = pallas.global "print" = "builtins.print" loc("GOLDEN/nonlocal_rebind.py":32:7)
        %13 = pallas.constant str "\22interpret:\22" loc("GOLDEN/nonlocal_rebind.py":32:13)
        %14 = pallas.call_indirect %12(%13, %9) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":32:7)
        %15 = pallas.constant bool "False" loc("GOLDEN/nonlocal_rebind.py":33:19)
      } else {
      } loc("GOLDEN/nonlocal_rebind.py":31:5)
      %10 = pallas.opaque "join"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":31:5)
      %11 = pallas.opaque "join"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":31:5)
    } loc("GOLDEN/nonlocal_rebind.py":28:3)
    %2 = pallas.call_indirect %1() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":35:3)
    %3 = pallas.opaque "nonlocal"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":28:3)
    %4 = pallas.prim "ref.shape"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":36:64)
    %5 = pallas.prim "ref.dtype"(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":36:73)
    %6 = pallas.prim "jax.ShapeDtypeStruct"(%4, %5) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":36:43)
    %7 = pallas.launch "pl.pallas_call" call paths [unknown] interpret unknown scratch [] {body = @kernel, body_text = "kernel", interpret_text = "interpret", pallas.mesh_axes = [""]} loc("GOLDEN/nonlocal_rebind.py":36:10)
    %8 = pallas.call_indirect %7(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nonlocal_rebind.py":36:10)
    pallas.return %8 : !pallas.value loc("GOLDEN/nonlocal_rebind.py":36:3)
  } loc("GOLDEN/nonlocal_rebind.py":25:1)
} loc("GOLDEN/nonlocal_rebind.py":1:1)
