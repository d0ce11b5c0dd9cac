"""LSP smoke test of an installed pallas-lsp over stdio: initialize (the
serverInfo version must be the project's), open an example kernel and get its
PLS001 diagnostic (the analysis, tables and all, works from the installed
layout), then shutdown and exit with status 0.

usage: PALLAS_LSP_BIN=<venv>/bin/pallas-lsp python lsp_smoke.py VERSION KERNEL.py
"""

import os
import pathlib
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lsp"))

from lspclient import BIN, StdioServer  # noqa: E402


def main():
    version, kernel = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    print(f"lsp smoke: {BIN}")
    server = StdioServer()
    try:
        result = server.initialize()
        got = result.get("serverInfo", {})
        assert got.get("name") == "pallas-lsp" and got.get("version") == version, got
        uri = kernel.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": kernel.read_text()}})
        diag = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                               and m["params"]["uri"] == uri and m["params"]["diagnostics"])
        codes = sorted({d.get("code") for d in diag["params"]["diagnostics"]})
        assert "PLS001" in codes, codes
        server.shutdown_and_exit()
        status = server.wait()
        assert status == 0, f"exit status {status}; stderr: {server.stderr()}"
        print(f"lsp smoke: ok (serverInfo {got}, diagnostics {codes}, exit {status})")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
