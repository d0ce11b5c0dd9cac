// Names rebound in an if's then branch are joined after the if; the else
// branch (and each elif) reads the binding from before the if. Reading the
// then branch's join there does not dominate the use: the verifier rejected
// the function and it was analysed as empty (172 functions of JAX and
// tokamax, among them `plgpu.kernel` itself).
// RUN: pallas-lsp mlir %S/../Inputs/branch_bindings.py 2>&1 | FileCheck %s
// CHECK-NOT: could not analyse
// CHECK-LABEL: pallas.func def @normalise attributes {arg_names = ["x", "scale"]}
// CHECK: ^bb0(%[[X:arg0]]: {{.*}}, %[[SCALE:arg1]]:
// CHECK: pallas.if
// CHECK: } else {
// CHECK-NEXT: pallas.prim "ref.astype"(%[[X]], %[[SCALE]])
// CHECK: pallas.opaque "join"
// CHECK-LABEL: pallas.func def @chain attributes {arg_names = ["x", "mode"]}
// CHECK: ^bb0(%[[CX:arg0]]: {{.*}}, %[[MODE:arg1]]:
// CHECK: %[[N0:.*]] = pallas.constant int "0"
// CHECK: } else {
// CHECK: pallas.if
// CHECK-NEXT: pallas.opaque "binary_operator"(%[[N0]], %[[CX]])
// CHECK: } else {
// CHECK-NEXT: pallas.return %[[CX]]
// CHECK-NOT: could not analyse
