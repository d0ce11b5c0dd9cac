"""How the kernel runner (pallas_lsp_runner.py) describes an exception: its
type, message and traceback (capped), and which frames are the user's.

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import os
import sys
import traceback

MESSAGE_CAP = 8 * 1024
TRACEBACK_CAP = 32 * 1024
# The runner's own files (pallas_lsp_*.py beside this one) are never user code.
RUNNER_DIR = os.path.dirname(os.path.realpath(__file__))


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return (
        text[:half]
        + f"\n[... {len(text) - limit} characters omitted ...]\n"
        + text[-half:]
    )


class FrameClassifier:
    """A frame is the user's when it lies in the project and outside any
    installed package, the standard library and this runner."""

    def __init__(self, project_root: str):
        self.root = os.path.realpath(project_root)
        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
        self.system = [os.path.realpath(p) + os.sep for p in prefixes if p]

    def is_user(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        runner = os.path.dirname(path) == RUNNER_DIR and os.path.basename(
            path
        ).startswith("pallas_lsp_")
        if runner or "site-packages" in path or "dist-packages" in path:
            return False
        if not path.startswith(self.root + os.sep) and path != self.root:
            return False
        # A virtual environment inside the project is still not user code.
        return not any(path.startswith(prefix) for prefix in self.system)


def describe_exception(exc: BaseException, classifier: FrameClassifier) -> dict:
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        frames.append(
            {
                "file": frame.filename,
                "line": frame.lineno or 0,
                "function": frame.name,
                "code": (frame.line or "").strip(),
                "user": classifier.is_user(frame.filename),
            }
        )
    # Errors raised from inside JAX's lowering may carry the user's frames
    # only in their context (JAX re-raises); surface them from the chain too.
    if not any(f["user"] for f in frames):
        seen = exc.__cause__ or exc.__context__
        while seen is not None and not any(f["user"] for f in frames):
            for frame in traceback.extract_tb(seen.__traceback__):
                if classifier.is_user(frame.filename):
                    frames.append(
                        {
                            "file": frame.filename,
                            "line": frame.lineno or 0,
                            "function": frame.name,
                            "code": (frame.line or "").strip(),
                            "user": True,
                        }
                    )
            seen = seen.__cause__ or seen.__context__
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "type": type(exc).__name__,
        "message": _cap(str(exc), MESSAGE_CAP),
        "frames": frames,
        "traceback": _cap(text, TRACEBACK_CAP),
    }


def synthetic_error(kind: str, message: str) -> dict:
    return {"type": kind, "message": message, "frames": [], "traceback": ""}
