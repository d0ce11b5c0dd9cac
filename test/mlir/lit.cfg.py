# lit configuration of the FileCheck tests on .mlir inputs: the pallas
# dialect (parse/print round trip, verifiers) and every analysis pass, run
# through pallas-opt. Run by test/suites/35-mlir.sh:
#   lit -v test/mlir -Dpallas_opt=build/analysis/tools/pallas-opt/pallas-opt
# FileCheck, not and lit come from the Debian package llvm-22-tools.
import os
import shutil

import lit.formats

config.name = "pallas-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
# Output/ of each test (%t files) goes to the build tree, not the sources.
config.test_exec_root = lit_config.params.get("exec_root") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build", "test-mlir"
)
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def tool(param, env, default):
    path = lit_config.params.get(param) or os.environ.get(env) or default
    if not path or not os.path.exists(path):
        lit_config.fatal(f"{param}: {path!r} not found (pass -D{param}=PATH or set {env})")
    return path


pallas_opt = tool(
    "pallas_opt", "PALLAS_OPT", os.path.join(root, "build", "analysis", "tools", "pallas-opt", "pallas-opt")
)
# The language server binary, for tests that start from Python (`pallas-lsp mlir`).
pallas_lsp = tool("pallas_lsp", "PALLAS_LSP_BIN", os.path.join(root, "build", "server", "pallas-lsp"))
llvm_bin = lit_config.params.get("llvm_bin") or os.environ.get("LLVM_BIN") or "/usr/lib/llvm-22/bin"
filecheck = tool("filecheck", "FILECHECK", os.path.join(llvm_bin, "FileCheck"))
not_tool = tool("not", "LLVM_NOT", os.path.join(llvm_bin, "not"))

# RUN lines name the tools as MLIR's own tests do: pallas-opt, FileCheck, not.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(pallas_opt), os.path.dirname(pallas_lsp), os.path.dirname(filecheck), os.path.dirname(not_tool), os.environ.get("PATH", "")]
)
