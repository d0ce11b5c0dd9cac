"""What the kernel runner (pallas_lsp_runner.py) reports about the Python it
runs in: JAX, jaxlib, CUDA plugins and devices, and whether a compiled
(Mosaic GPU) run can happen here.

Part of the runner: it depends on nothing but the standard library and JAX,
and is loaded by path from pallas_lsp_runner.py (never found on sys.path).
"""

from __future__ import annotations

import importlib.util
import sys

MOSAIC_GPU_MIN_CC = (9, 0)


def _distribution_version(name: str) -> str | None:
    try:
        from importlib import metadata

        return metadata.version(name)
    except Exception:  # noqa: BLE001 - not installed, or broken metadata
        return None


def describe_environment(jax_module=None) -> dict:
    env = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": sys.platform,
        "jax": None,
        "jaxlib": None,
        "cuda_plugins": {},
        "devices": [],
        "backend": None,
        "gpu_interpret_mode": None,
    }
    for plugin in (
        "jax-cuda13-plugin",
        "jax-cuda12-plugin",
        "jax-cuda13-pjrt",
        "jax-cuda12-pjrt",
    ):
        version = _distribution_version(plugin)
        if version:
            env["cuda_plugins"][plugin] = version
    if jax_module is None:
        try:
            import jax as jax_module
        except Exception as exc:  # noqa: BLE001
            env["jax_error"] = f"{type(exc).__name__}: {exc}"
            return env
    env["jax"] = getattr(jax_module, "__version__", None)
    try:
        import jaxlib

        env["jaxlib"] = getattr(jaxlib, "__version__", None) or _distribution_version(
            "jaxlib"
        )
    except Exception:  # noqa: BLE001
        env["jaxlib"] = _distribution_version("jaxlib")
    try:
        env["backend"] = jax_module.default_backend()
        for device in jax_module.devices():
            env["devices"].append(
                {
                    "platform": device.platform,
                    "kind": getattr(device, "device_kind", ""),
                    "id": device.id,
                    "compute_capability": getattr(device, "compute_capability", None),
                }
            )
    except Exception as exc:  # noqa: BLE001
        env["devices_error"] = f"{type(exc).__name__}: {exc}"
    env["gpu_interpret_mode"] = gpu_interpret_params_class() is not None
    return env


def _parse_cc(value) -> tuple[int, int] | None:
    try:
        major, _, minor = str(value).partition(".")
        return int(major), int(minor or 0)
    except ValueError:
        return None


def compiled_mode_blocker(jax_module) -> str | None:
    """None when a GPU can run Mosaic GPU kernels; else why not, plainly."""
    try:
        gpus = [d for d in jax_module.devices() if d.platform in ("gpu", "cuda")]
    except Exception:  # noqa: BLE001
        gpus = []
    if not gpus:
        try:
            gpus = list(jax_module.devices("cuda"))
        except Exception:  # noqa: BLE001 - no CUDA backend at all
            gpus = []
    capable = [
        d
        for d in gpus
        if (_parse_cc(getattr(d, "compute_capability", "")) or (0, 0))
        >= MOSAIC_GPU_MIN_CC
    ]
    if capable:
        return None
    need = f"{MOSAIC_GPU_MIN_CC[0]}.{MOSAIC_GPU_MIN_CC[1]}"
    version = getattr(jax_module, "__version__", "?")
    if gpus:
        seen = ", ".join(
            f"{getattr(d, 'device_kind', d)} (compute capability {getattr(d, 'compute_capability', '?')})"
            for d in gpus
        )
        return (
            f"compiled mode needs an NVIDIA GPU with compute capability {need} or newer "
            f"(Mosaic GPU); JAX {version} sees only: {seen}."
        )
    try:
        seen = (
            ", ".join(sorted({d.platform for d in jax_module.devices()}))
            or "no devices"
        )
    except Exception as exc:  # noqa: BLE001
        seen = f"no devices ({exc})"
    return (
        f"compiled mode needs an NVIDIA GPU with compute capability {need} or newer "
        f"(Mosaic GPU), but JAX {version} in {sys.executable} sees no GPU (only: {seen}). "
        "Run on a GPU machine with a CUDA jaxlib (pip install 'jax[cuda13]'), for example "
        "through a launch template such as 'ssh gpu-box ...' or 'srun --gpus=1 ...'; "
        "or use the interpret mode."
    )


def gpu_interpret_params_class():
    """InterpretGPUParams wherever this JAX version keeps it (or None)."""
    candidates = (
        ("jax.experimental.pallas.mosaic_gpu", "InterpretGPUParams"),
        ("jax._src.pallas.mosaic_gpu.interpret.params", "InterpretGPUParams"),
    )
    for module_name, attr in candidates:
        try:
            module = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001, S112 - absent in this JAX version: try the next
            continue
        if hasattr(module, attr):
            return getattr(module, attr)
    return None
