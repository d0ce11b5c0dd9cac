"""``python -m pallas_lsp ARGS`` runs the bundled ``pallas-lsp ARGS``."""

from __future__ import annotations

import os
import subprocess
import sys

from pallas_lsp import find_pallas_lsp_bin


def main() -> int:
    binary = find_pallas_lsp_bin()
    args = [binary, *sys.argv[1:]]
    if sys.platform == "win32":  # no exec: run it and pass its exit code on
        return subprocess.run(args).returncode
    os.execv(binary, args)  # replaces this process: signals and stdio go straight to the server


if __name__ == "__main__":
    sys.exit(main())
