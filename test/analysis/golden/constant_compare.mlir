module attributes {pallas.path = "GOLDEN/constant_compare.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/constant_compare.py":4:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/constant_compare.py":6:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
    %0 = pallas.constant str "\22debug\22" loc("GOLDEN/constant_compare.py":8:8)
  } loc("GOLDEN/constant_compare.py":8:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
    %0 = pallas.constant int "2" loc("GOLDEN/constant_compare.py":9:9)
  } loc("GOLDEN/constant_compare.py":9:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
    %0 = pallas.constant none "None" loc("GOLDEN/constant_compare.py":10:11)
  } loc("GOLDEN/constant_compare.py":10:1)
  pallas.func module @__module__.5 attributes {arg_names = []} {
  } {
    %0 = pallas.constant bool "True" loc("GOLDEN/constant_compare.py":11:6)
  } loc("GOLDEN/constant_compare.py":11:1)
  pallas.func module @__module__.6 attributes {arg_names = []} {
  } {
    %0 = pallas.opaque "class"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/constant_compare.py":14:1)
  } loc("GOLDEN/constant_compare.py":14:1)
  pallas.func module @__module__.7 attributes {arg_names = []} {
  } {
    %0 = pallas.global "Mode.FAST" = "const:Mode.FAST" loc("GOLDEN/constant_compare.py":19:11)
  } loc("GOLDEN/constant_compare.py":19:1)
  pallas.func def @k attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":22:1), %arg1: !pallas.value loc("GOLDEN/constant_compare.py":22:1)):
    %0 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/constant_compare.py":23:22)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":23:16)
    %2 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/constant_compare.py":23:9)
    %3 = pallas.prim "ref.__setitem__"(%arg1, %2, %1) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":23:3)
  } loc("GOLDEN/constant_compare.py":22:1)
  pallas.func def @by_text attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":26:1)):
    %0 = pallas.global "MODE" = "const:\22debug\22" loc("GOLDEN/constant_compare.py":27:51)
    %1 = pallas.constant str "\22debug\22" loc("GOLDEN/constant_compare.py":27:59)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":27:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "MODE == \22debug\22"} loc("GOLDEN/constant_compare.py":27:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":27:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":27:3)
  } loc("GOLDEN/constant_compare.py":26:1)
  pallas.func def @by_other_text attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":30:1)):
    %0 = pallas.global "MODE" = "const:\22debug\22" loc("GOLDEN/constant_compare.py":31:51)
    %1 = pallas.constant str "\22debug\22" loc("GOLDEN/constant_compare.py":31:59)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":31:51)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "MODE != \22debug\22"} loc("GOLDEN/constant_compare.py":31:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":31:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":31:3)
  } loc("GOLDEN/constant_compare.py":30:1)
  pallas.func def @by_order attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":34:1)):
    %0 = pallas.global "LEVEL" = "const:2" loc("GOLDEN/constant_compare.py":35:51)
    %1 = pallas.constant int "2" loc("GOLDEN/constant_compare.py":35:60)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":35:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "LEVEL >= 2"} loc("GOLDEN/constant_compare.py":35:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":35:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":35:3)
  } loc("GOLDEN/constant_compare.py":34:1)
  pallas.func def @by_strict_order attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":38:1)):
    %0 = pallas.global "LEVEL" = "const:2" loc("GOLDEN/constant_compare.py":39:51)
    %1 = pallas.constant int "2" loc("GOLDEN/constant_compare.py":39:59)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":39:51)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "LEVEL > 2"} loc("GOLDEN/constant_compare.py":39:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":39:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":39:3)
  } loc("GOLDEN/constant_compare.py":38:1)
  pallas.func def @by_less attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":42:1)):
    %0 = pallas.global "LEVEL" = "const:2" loc("GOLDEN/constant_compare.py":43:51)
    %1 = pallas.constant int "3" loc("GOLDEN/constant_compare.py":43:59)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":43:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "LEVEL < 3"} loc("GOLDEN/constant_compare.py":43:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":43:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":43:3)
  } loc("GOLDEN/constant_compare.py":42:1)
  pallas.func def @by_none attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":46:1)):
    %0 = pallas.global "NOTHING" = "const:None" loc("GOLDEN/constant_compare.py":47:51)
    %1 = pallas.constant none "None" loc("GOLDEN/constant_compare.py":47:62)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":47:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "NOTHING is None"} loc("GOLDEN/constant_compare.py":47:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":47:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":47:3)
  } loc("GOLDEN/constant_compare.py":46:1)
  pallas.func def @by_not_none attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":50:1)):
    %0 = pallas.global "MODE" = "const:\22debug\22" loc("GOLDEN/constant_compare.py":51:51)
    %1 = pallas.constant none "None" loc("GOLDEN/constant_compare.py":51:63)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":51:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "MODE is not None"} loc("GOLDEN/constant_compare.py":51:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":51:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":51:3)
  } loc("GOLDEN/constant_compare.py":50:1)
  pallas.func def @by_bool_identity attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":54:1)):
    %0 = pallas.global "ON" = "const:True" loc("GOLDEN/constant_compare.py":55:51)
    %1 = pallas.constant bool "False" loc("GOLDEN/constant_compare.py":55:57)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":55:51)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "ON is False"} loc("GOLDEN/constant_compare.py":55:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":55:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":55:3)
  } loc("GOLDEN/constant_compare.py":54:1)
  pallas.func def @by_bool_value attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":58:1)):
    %0 = pallas.global "ON" = "const:True" loc("GOLDEN/constant_compare.py":59:51)
    %1 = pallas.constant int "1" loc("GOLDEN/constant_compare.py":59:57)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":59:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "ON == 1"} loc("GOLDEN/constant_compare.py":59:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":59:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":59:3)
  } loc("GOLDEN/constant_compare.py":58:1)
  pallas.func def @by_int_identity attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":62:1)):
    %0 = pallas.global "LEVEL" = "const:2" loc("GOLDEN/constant_compare.py":63:51)
    %1 = pallas.constant int "2" loc("GOLDEN/constant_compare.py":63:60)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":63:51)
    %3 = pallas.launch "pl.pallas_call" call paths [unknown] interpret unknown scratch [] {body = @k, body_text = "k", interpret_text = "LEVEL is 2", pallas.mesh_axes = [""]} loc("GOLDEN/constant_compare.py":63:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":63:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":63:3)
  } loc("GOLDEN/constant_compare.py":62:1)
  pallas.func def @by_kinds attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":66:1)):
    %0 = pallas.global "NOTHING" = "const:None" loc("GOLDEN/constant_compare.py":67:51)
    %1 = pallas.constant str "\22debug\22" loc("GOLDEN/constant_compare.py":67:62)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":67:51)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "NOTHING == \22debug\22"} loc("GOLDEN/constant_compare.py":67:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":67:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":67:3)
  } loc("GOLDEN/constant_compare.py":66:1)
  pallas.func def @by_member attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":70:1)):
    %0 = pallas.global "CURRENT" = "const:Mode.FAST" loc("GOLDEN/constant_compare.py":71:51)
    %1 = pallas.global "Mode.FAST" = "const:Mode.FAST" loc("GOLDEN/constant_compare.py":71:62)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":71:51)
    %3 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "CURRENT is Mode.FAST"} loc("GOLDEN/constant_compare.py":71:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":71:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":71:3)
  } loc("GOLDEN/constant_compare.py":70:1)
  pallas.func def @by_other_member attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/constant_compare.py":74:1)):
    %0 = pallas.global "CURRENT" = "const:Mode.FAST" loc("GOLDEN/constant_compare.py":75:51)
    %1 = pallas.global "Mode.SLOW" = "const:Mode.SLOW" loc("GOLDEN/constant_compare.py":75:62)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":75:51)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret module_constant scratch [] {body = @k, body_text = "k", interpret_text = "CURRENT == Mode.SLOW"} loc("GOLDEN/constant_compare.py":75:10)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/constant_compare.py":75:10)
    pallas.return %4 : !pallas.value loc("GOLDEN/constant_compare.py":75:3)
  } loc("GOLDEN/constant_compare.py":74:1)
} loc("GOLDEN/constant_compare.py":1:1)
