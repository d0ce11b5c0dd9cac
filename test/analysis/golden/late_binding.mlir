module attributes {pallas.path = "GOLDEN/late_binding.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/late_binding.py":4:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/late_binding.py":5:1)
  pallas.func def @build attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/late_binding.py":8:1)):
    %0 = pallas.constant int "64" loc("GOLDEN/late_binding.py":9:11)
    %1 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":10:10)
    %2 = pallas.closure def "kernel" attributes {arg_names = ["x_ref", "o_ref"]} {
    ^bb0(%arg1: !pallas.value loc("GOLDEN/late_binding.py":12:3), %arg2: !pallas.value loc("GOLDEN/late_binding.py":12:3)):
      %7 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":13:24)
      %8 = pallas.prim "ref.__getitem__"(%arg1, %7) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":13:18)
      %9 = pallas.opaque "binary_operator"(%8, %0) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":13:18)
      %10 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":13:11)
      %11 = pallas.prim "ref.__setitem__"(%arg2, %10, %9) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":13:5)
    } loc("GOLDEN/late_binding.py":12:3)
    %3 = pallas.closure def "reset" attributes {arg_names = []} {
      %7 = pallas.constant bool "False" loc("GOLDEN/late_binding.py":16:12)
      %8 = pallas.constant int "0" loc("GOLDEN/late_binding.py":17:13)
      %9 = pallas.opaque "expression_list"(%7, %8) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":18:12)
      pallas.return %9 : !pallas.value loc("GOLDEN/late_binding.py":18:5)
    } loc("GOLDEN/late_binding.py":15:3)
    %4 = pallas.call_indirect %3() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":20:3)
    %5 = pallas.launch "pl.pallas_call" call %2 : !pallas.value paths [interpret_hlo] interpret literal scratch [] {body_text = "kernel", interpret_text = "mode"} loc("GOLDEN/late_binding.py":21:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":21:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/late_binding.py":21:3)
  } loc("GOLDEN/late_binding.py":8:1)
  pallas.func def @rebound attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/late_binding.py":24:1)):
    %0 = pallas.constant float "1.0" loc("GOLDEN/late_binding.py":25:11)
    %1 = pallas.closure def "kernel" attributes {arg_names = ["x_ref", "o_ref"]} {
    ^bb0(%arg1: !pallas.value loc("GOLDEN/late_binding.py":27:3), %arg2: !pallas.value loc("GOLDEN/late_binding.py":27:3)):
      %6 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":28:24)
      %7 = pallas.prim "ref.__getitem__"(%arg1, %6) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":28:18)
      %8 = pallas.opaque "late_bound"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":28:31)
      %9 = pallas.opaque "binary_operator"(%7, %8) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":28:18)
      %10 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":28:11)
      %11 = pallas.prim "ref.__setitem__"(%arg2, %10, %9) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":28:5)
    } loc("GOLDEN/late_binding.py":27:3)
    %2 = pallas.constant float "2.0" loc("GOLDEN/late_binding.py":30:11)
    %3 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":31:56)
    %4 = pallas.launch "pl.pallas_call" call %1 : !pallas.value paths [interpret_hlo] interpret literal scratch [] {body_text = "kernel", interpret_text = "True"} loc("GOLDEN/late_binding.py":31:10)
    %5 = pallas.call_indirect %4(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":31:10)
    pallas.return %5 : !pallas.value loc("GOLDEN/late_binding.py":31:3)
  } loc("GOLDEN/late_binding.py":24:1)
  pallas.func def @via_nonlocal attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/late_binding.py":34:1)):
    %0 = pallas.constant bool "False" loc("GOLDEN/late_binding.py":35:10)
    %1 = pallas.closure def "enable" attributes {arg_names = []} {
      %7 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":39:12)
    } loc("GOLDEN/late_binding.py":37:3)
    %2 = pallas.closure def "kernel" attributes {arg_names = ["x_ref", "o_ref"]} {
    ^bb0(%arg1: !pallas.value loc("GOLDEN/late_binding.py":41:3), %arg2: !pallas.value loc("GOLDEN/late_binding.py":41:3)):
      %7 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":42:24)
      %8 = pallas.prim "ref.__getitem__"(%arg1, %7) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":42:18)
      %9 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":42:11)
      %10 = pallas.prim "ref.__setitem__"(%arg2, %9, %8) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":42:5)
    } loc("GOLDEN/late_binding.py":41:3)
    %3 = pallas.call_indirect %1() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":44:3)
    %4 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":39:12)
    %5 = pallas.launch "pl.pallas_call" call %2 : !pallas.value paths [interpret_hlo] interpret literal scratch [] {body_text = "kernel", interpret_text = "flag"} loc("GOLDEN/late_binding.py":45:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":45:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/late_binding.py":45:3)
  } loc("GOLDEN/late_binding.py":34:1)
  pallas.func def @by_name_only attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/late_binding.py":49:1)):
    %0 = pallas.constant bool "False" loc("GOLDEN/late_binding.py":50:10)
    %1 = pallas.closure def "set_fast" attributes {arg_names = []} {
      %7 = pallas.constant str "\22eager\22" loc("GOLDEN/late_binding.py":54:17)
      %8 = pallas.opaque "delete_statement"(%7) origins [value] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":55:5)
      %9 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":56:12)
    } loc("GOLDEN/late_binding.py":52:3)
    %2 = pallas.closure def "kernel" attributes {arg_names = ["x_ref", "o_ref"]} {
    ^bb0(%arg1: !pallas.value loc("GOLDEN/late_binding.py":58:3), %arg2: !pallas.value loc("GOLDEN/late_binding.py":58:3)):
      %7 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":59:24)
      %8 = pallas.prim "ref.__getitem__"(%arg1, %7) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":59:18)
      %9 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/late_binding.py":59:11)
      %10 = pallas.prim "ref.__setitem__"(%arg2, %9, %8) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":59:5)
    } loc("GOLDEN/late_binding.py":58:3)
    %3 = pallas.call_indirect %1() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":61:3)
    %4 = pallas.constant bool "True" loc("GOLDEN/late_binding.py":56:12)
    %5 = pallas.launch "pl.pallas_call" call %2 : !pallas.value paths [interpret_hlo] interpret literal scratch [] {body_text = "kernel", interpret_text = "fast"} loc("GOLDEN/late_binding.py":62:10)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/late_binding.py":62:10)
    pallas.return %6 : !pallas.value loc("GOLDEN/late_binding.py":62:3)
  } loc("GOLDEN/late_binding.py":49:1)
} loc("GOLDEN/late_binding.py":1:1)
