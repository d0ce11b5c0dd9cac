"""The result channel of the kernel runner (pallas_lsp_runner.py): JSON lines
on a dedicated fd or stdout, each carrying the run's secret when one was
given on stdin.

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import json
import os
import sys


class ResultChannel:
    """JSON lines to a descriptor the user's code does not write to."""

    def __init__(self, fd: int, secret: str = ""):
        os.set_inheritable(fd, False)  # the user's subprocesses must not hold it
        self._stream = os.fdopen(fd, "w", encoding="utf-8", closefd=True)
        # This run's secret (read from stdin before any user code ran): the
        # supervisor believes only lines that carry it, so a line the user's
        # code writes to this descriptor cannot pass for a result.
        self._secret = secret

    def send(self, document: dict) -> None:
        if self._secret:
            document = dict(document, secret=self._secret)
        try:
            # The leading newline ends whatever partial line the user's code
            # may have left on the descriptor, so ours stays one JSON line.
            self._stream.write(
                "\n" + json.dumps(document, allow_nan=False, default=str) + "\n"
            )
            self._stream.flush()
        except (BrokenPipeError, OSError):
            pass  # the supervisor is gone; nothing left to tell

    def progress(
        self, phase: str, mode: str, message: str, percent: int | None = None
    ) -> None:
        event = {"event": "progress", "phase": phase, "mode": mode, "message": message}
        if percent is not None:
            event["percent"] = percent
        self.send(event)


def read_secret() -> str:
    """The run's secret: the first line of stdin (the supervisor writes it
    there and closes the pipe, so it is gone before the user's code runs)."""
    line = sys.stdin.buffer.readline(256)
    return line.decode("ascii", "replace").strip()


def open_channel(args) -> ResultChannel:
    secret = read_secret() if args.result_secret_stdin else ""
    if args.result_fd is not None:
        return ResultChannel(args.result_fd, secret)
    # --result-stdout: keep the real stdout for results; fold the user's
    # stdout (Python prints and C-level writes alike) into stderr.
    sys.stdout.flush()
    result_fd = os.dup(1)
    os.dup2(2, 1)
    return ResultChannel(result_fd, secret)
