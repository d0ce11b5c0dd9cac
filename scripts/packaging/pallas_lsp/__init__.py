"""pallas-lsp: a language server for JAX Pallas Mosaic GPU kernels.

The wheel's work is done by a native binary, ``pallas-lsp``, which pip puts
in the environment's scripts folder (``<venv>/bin``), as ruff does. This
package only finds it, so that ``python -m pallas_lsp`` works where the
scripts folder is not on PATH.
"""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["find_pallas_lsp_bin"]


def find_pallas_lsp_bin() -> str:
    """The path of the pallas-lsp binary this package was installed with."""
    exe = "pallas-lsp" + (sysconfig.get_config_var("EXE") or "")
    # The scripts folder of the scheme the wheel was installed into: the
    # environment's (venv, system), then the per-user one (pip --user).
    candidates = [sysconfig.get_path("scripts")]
    user_scheme = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else (
        "posix_user" if os.name == "posix" else "nt_user")
    candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    # pip install --target DIR / --prefix DIR: DIR/bin next to the package.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates.append(os.path.join(package_root, "bin"))
    for folder in candidates:
        path = os.path.join(folder, exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "pallas-lsp: the native binary was not found in " + ", ".join(candidates)
        + f" (is the pallas-lsp wheel installed for {sys.executable}?)"
    )
