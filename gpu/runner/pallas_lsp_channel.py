"""The result channel of the kernel runner (pallas_lsp_runner.py): JSON lines
on a dedicated fd or stdout, each carrying the run's secret when one was
given on stdin.

With --result-stdout (launch templates such as ssh or srun forward only the
three standard streams) the real stdout carries the result lines, and what
the user's code writes to stdout (Python prints and C-level writes alike)
is framed onto the channel as {"event": "output", "stream": "stdout",
"text": ...} lines, as it is written: the supervisor tells the two apart
and shows the program's output live.

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import json
import os
import sys
import threading

# How long the result waits for the user's stdout to drain: a process the
# entry started may keep the pipe open after the entry returned.
OUTPUT_DRAIN_SECONDS = 5.0


class ResultChannel:
    """JSON lines to a descriptor the user's code does not write to."""

    def __init__(self, fd: int, secret: str = ""):
        os.set_inheritable(fd, False)  # the user's subprocesses must not hold it
        self._stream = os.fdopen(fd, "w", encoding="utf-8", closefd=True)
        # This run's secret (read from stdin before any user code ran): the
        # supervisor believes only lines that carry it, so a line the user's
        # code writes to this descriptor cannot pass for a result.
        self._secret = secret
        # The stdout reader thread sends too (output events).
        self._lock = threading.Lock()
        self._output = None  # (thread, read fd) while the user's stdout is framed

    def send(self, document: dict) -> None:
        if document.get("event") == "result":
            self.finish_output()  # everything the program printed comes first
        if self._secret:
            document = dict(document, secret=self._secret)
        line = "\n" + json.dumps(document, allow_nan=False, default=str) + "\n"
        with self._lock:
            try:
                # The leading newline ends whatever partial line the user's code
                # may have left on the descriptor, so ours stays one JSON line.
                self._stream.write(line)
                self._stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the supervisor is gone; nothing left to tell

    def progress(
        self, phase: str, mode: str, message: str, percent: int | None = None
    ) -> None:
        event = {"event": "progress", "phase": phase, "mode": mode, "message": message}
        if percent is not None:
            event["percent"] = percent
        self.send(event)

    def frame_stdout(self) -> None:
        """Points fd 1 at a pipe whose reader sends what arrives as output
        events (fd 1 itself must already carry the channel elsewhere)."""
        read, write = os.pipe()
        os.dup2(write, 1)  # inheritable: the entry's subprocesses print here too
        os.close(write)

        def pump() -> None:
            while True:
                try:
                    chunk = os.read(read, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.send(
                    {
                        "event": "output",
                        "stream": "stdout",
                        "text": chunk.decode("utf-8", "replace"),
                    }
                )

        thread = threading.Thread(target=pump, name="pallas-lsp-stdout", daemon=True)
        thread.start()
        self._output = (thread, read)

    def finish_output(self) -> None:
        """Ends the framing: what was written so far is sent, later writes
        to stdout go nowhere."""
        if self._output is None:
            return
        thread, read = self._output
        self._output = None
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # our end of the pipe closes: the reader sees EOF
        os.close(devnull)
        thread.join(OUTPUT_DRAIN_SECONDS)
        if not thread.is_alive():
            os.close(read)


def read_secret() -> str:
    """The run's secret: the first line of stdin (the supervisor writes it
    there and closes the pipe, so it is gone before the user's code runs)."""
    line = sys.stdin.buffer.readline(256)
    return line.decode("ascii", "replace").strip()


def open_channel(args) -> ResultChannel:
    secret = read_secret() if args.result_secret_stdin else ""
    if args.result_fd is not None:
        return ResultChannel(args.result_fd, secret)
    # --result-stdout: keep the real stdout for results; frame the user's
    # stdout onto it (see the module's docstring).
    sys.stdout.flush()
    channel = ResultChannel(os.dup(1), secret)
    channel.frame_stdout()
    return channel
