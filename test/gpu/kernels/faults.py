"""Entries that misbehave the ways a kernel run can: the supervisor must
survive each, report it, and leave no process behind."""

import ctypes
import os
import subprocess
import sys
import time

import jax.numpy as jnp
import numpy as np


def crash_abort():
    print("about to abort", flush=True)
    os.abort()


def crash_segfault():
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def hang():
    print("hanging", flush=True)
    while True:
        time.sleep(1)


def hang_with_child():
    # A grandchild in the same process group: the timeout must take it too.
    child = subprocess.Popen(["sleep", "300"])
    print(f"child {child.pid}", flush=True)
    while True:
        time.sleep(1)


def leave_child():
    # Returns normally but leaves a background process running.
    child = subprocess.Popen(["sleep", "300"])
    print(f"child {child.pid}", flush=True)
    return jnp.ones((4,))


def flood():
    chunk = "x" * 1023 + "\n"
    for _ in range(20 * 1024):  # 20 MiB on stdout
        sys.stdout.write(chunk)
    sys.stdout.write("END-OF-FLOOD\n")
    return jnp.zeros((2,))


def exhaust_memory():
    blocks = []
    for _ in range(1024):
        blocks.append(np.ones((256, 1024, 1024), np.uint8))  # 256 MiB each, touched
    return len(blocks)


def exit_hard():
    os._exit(3)


def raise_in_user_code():
    values = jnp.arange(3)
    return helper(values)


def helper(values):
    raise ValueError(f"bad values {values.shape}")


def escape_the_group():
    # Children that leave the run's process group: a new session, and a
    # double fork (its parent exits at once). The run must take them too.
    direct = subprocess.Popen(["setsid", "sleep", "300"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"escaped {direct.pid}", flush=True)
    out = subprocess.run(["sh", "-c", "setsid sleep 301 </dev/null >/dev/null 2>&1 & echo $!"],
                         capture_output=True, text=True, check=True).stdout
    print(f"escaped {int(out)}", flush=True)
    return jnp.ones((4,))


def fake_result():
    # Writes a result line claiming success on the result channel (fd 3),
    # then ends before the runner can write its own.
    import json
    line = json.dumps({"event": "result", "version": 1, "ok": True, "modes": [],
                       "comparisons": [], "setup_error": None})
    os.write(3, (line + "\n").encode())
    os.write(3, b'{"event": "result", "ok": true, "secret": "guess"}\n')
    os._exit(0)


def fake_result_then_fail():
    # The same forged line, then a real failure: the real result wins.
    import json
    os.write(3, (json.dumps({"event": "result", "version": 1, "ok": True}) + "\n").encode())
    os.write(3, b'{"event": "res')  # and a partial line
    raise ValueError("the real outcome")


def killed_like_by_the_oom_killer():
    print("about to be killed", flush=True)
    os.kill(os.getpid(), 9)
