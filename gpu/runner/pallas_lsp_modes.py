"""How the kernel runner (pallas_lsp_runner.py) forces a mode: every
pallas_call / pl.kernel / plgpu.kernel / core_map the entry reaches runs
compiled, interpret=True or in GPU interpret mode, whatever the user's code
passes.

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util

# Loaded before this part by pallas_lsp_runner.py (sys.modules).
from pallas_lsp_environment import gpu_interpret_params_class


class ModeForcer:
    """Forces the interpret mode of every Pallas entry point.

    Two levers, because JAX reads the mode at different times per API:
    - the public entry points are wrapped so `interpret=` is replaced, and the
      kernels they build are rebuilt lazily per mode (pallas_call bakes its
      mode in when it is built, often at import time);
    - the config `pallas_tpu_interpret_mode_context_manager`, which every
      entry point ORs with its argument and which is part of the jit cache
      key, is set to the mode's value, so cached traces are not reused across
      modes. The user's own `force_gpu_interpret_mode` is made a no-op.
    """

    PUBLIC = (
        ("jax.experimental.pallas", "pallas_call"),
        ("jax.experimental.pallas", "kernel"),
        ("jax.experimental.pallas", "core_map"),
        ("jax.experimental.pallas.mosaic_gpu", "kernel"),
    )
    FORCE_CONTEXTS = (
        ("jax.experimental.pallas.mosaic_gpu", "force_gpu_interpret_mode"),
        ("jax._src.pallas.mosaic_gpu.interpret.params", "force_gpu_interpret_mode"),
    )

    def __init__(self):
        self.mode: str | None = None
        self.patched: list[str] = []
        # While the entry runs: the kernel calls it makes, (fn, args, kwargs),
        # so the runner times those and nothing else. None: not recording.
        self.recorded: list | None = None
        self._config = None
        self._gpu_params = None

    def install(self) -> None:
        try:
            from jax._src import config as jax_config

            self._config = getattr(
                jax_config, "pallas_tpu_interpret_mode_context_manager", None
            )
        except Exception:  # noqa: BLE001
            self._config = None
        for module_name, attr in self.PUBLIC:
            module = _import_or_none(module_name)
            original = getattr(module, attr, None) if module else None
            if original is None or getattr(original, "__pallas_lsp_original__", None):
                continue
            setattr(module, attr, self._wrap_entry_point(original))
            self.patched.append(f"{module_name}.{attr}")
        for module_name, attr in self.FORCE_CONTEXTS:
            module = _import_or_none(module_name)
            if module is not None and hasattr(module, attr):
                setattr(module, attr, _ignored_force_context)
                self.patched.append(f"{module_name}.{attr}")

    def interpret_value(self, mode: str):
        if mode == "compiled":
            return False
        if mode == "interpret":
            return True
        if self._gpu_params is None:
            params = gpu_interpret_params_class()
            if params is None:
                raise RuntimeError(
                    "this JAX version has no GPU interpret mode (InterpretGPUParams)"
                )
            self._gpu_params = params()
        return self._gpu_params

    def set_mode(self, mode: str) -> None:
        value = self.interpret_value(mode)
        self.mode = mode
        if self._config is not None:
            self._config.set_global(None if mode == "compiled" else value)

    def _wrap_entry_point(self, original):
        forcer = self

        @functools.wraps(original)
        def entry_point(*args, **kwargs):
            if forcer.mode is None:
                return original(*args, **kwargs)

            def build(mode):
                return original(
                    *args, **{**kwargs, "interpret": forcer.interpret_value(mode)}
                )

            return _late_bound(forcer, build)

        entry_point.__pallas_lsp_original__ = original
        return entry_point


def _late_bound(forcer: ModeForcer, build):
    """Calls build(mode) for the current mode; wraps callables it returns so
    they too are rebuilt when the mode changes (decorator chains)."""
    result = build(forcer.mode)
    if not callable(result) or hasattr(result, "shape"):
        return result
    cache = {forcer.mode: result}

    def concrete():
        if forcer.mode not in cache:
            cache[forcer.mode] = build(forcer.mode)
        return cache[forcer.mode]

    @functools.wraps(result)
    def late(*args, **kwargs):
        value = _late_bound(
            forcer, lambda mode: _call_in_mode(concrete, mode, args, kwargs)
        )
        # A call that returned arrays ran a kernel: remember it for timing.
        if forcer.recorded is not None and len(forcer.recorded) < 16:
            if not callable(value) or hasattr(value, "shape"):
                forcer.recorded.append((late, args, kwargs))
        return value

    return late


def _call_in_mode(concrete, mode, args, kwargs):
    del mode  # concrete() reads the forcer's current mode
    return concrete()(*args, **kwargs)


@contextlib.contextmanager
def _ignored_force_context(*args, **kwargs):
    del args, kwargs
    yield


def _import_or_none(name: str):
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001
        return None
