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
