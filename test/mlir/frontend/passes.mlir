// From Python to findings: the module the front end prints, run through the
// passes by pallas-opt, gives the finding the language server gives (PLS001
// at the call of the inline_mgpu region) and the launch's path matrix.
// RUN: pallas-lsp mlir %S/../Inputs/frontend_kernel.py \
// RUN:   | pallas-opt --pallas-discharge --pallas-path-matrix -o /dev/null 2>&1 | FileCheck %s
// CHECK: frontend_kernel.py:27:3: error: PLS001: The inline_mgpu region `touch` cannot run on interpret=True
// CHECK: frontend_kernel.py:33:10: remark: path matrix of pl.pallas_call (selects interpret_hlo)
// CHECK: note: interpret: no (inline_mgpu_p from plgpu.inline_mgpu
// The language server reports the same finding at the same place:
// RUN: not pallas-lsp check %S/../Inputs/frontend_kernel.py 2>&1 | FileCheck %s --check-prefix=LSP
// LSP: frontend_kernel.py:27:3: {{.*}}PLS001
