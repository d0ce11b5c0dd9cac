"""Forcing a launch path in the oracle's child process (issue 36).

Every fixture is also run on each path forced, whatever it selects itself,
so that pallas-lsp's path matrix ("launches" -> "paths" of `check --format
json`) is judged against JAX on every path, not only the one the fixture
takes:

* ``interpret``: interpret=True (the HLO interpreter);
* ``gpu-interpret``: GPU interpret mode through the launch's params: the
  params JAX would use as written (a process-wide mode's the fixture sets,
  else the launch's own ``InterpretGPUParams(...)``, else
  ``InterpretGPUParams()``), so that their options (e.g.
  ``skip_floating_point_ops``) apply as the matrix reads them;
* ``gpu-interpret-mode``: GPU interpret mode through the process-wide mode
  (``InterpretGPUParams()``), which JAX ORs with, and so puts before, a
  launch's own ``interpret=`` (its options included);
* ``compiled``: interpret=False, lowered for the ``cuda`` platform on the
  CPU (Mosaic GPU lowering needs no GPU).

How: JAX 0.10.2 computes ``config.pallas_tpu_interpret_mode_context_manager
.value or interpret`` in every launch API (pallas_call, pl.kernel /
plgpu.kernel through mpmd_map, core_map). The config state is replaced by
one whose value is the forced mode (``True``, ``InterpretGPUParams()``) or
``None``, and which ignores the fixture's own ``force_gpu_interpret_mode``
/ ``set_gpu_interpret_mode``; the launch's own ``interpret`` is replaced
where JAX passes it on (``_pallas_call``, ``_mpmd_map``, ``core_map_p``'s
bind; core_map's discharge goes through ``_pallas_call`` too). The product
never influences any of this: only JAX's own entry points are wrapped.
"""
from __future__ import annotations

import contextlib
import os
import traceback

FORCED_PATHS = ("interpret", "gpu-interpret", "gpu-interpret-mode", "compiled")


_UNSET = object()


class _ForcedMode:
  """Stands for JAX's config state `pallas_tpu_interpret_mode_context_manager`:
  reads give the forced value. The fixture's own settings
  (`force_gpu_interpret_mode`, `set_gpu_interpret_mode`) are kept aside, as
  the mode it would run in (`fixture_mode`), and take no effect."""

  def __init__(self, real, value):
    self._real, self._value = real, value
    self._global, self._local = real.get_global(), _UNSET

  @property
  def value(self):
    return self._value

  def fixture_mode(self):
    return self._global if self._local is _UNSET else self._local

  def swap_local(self, new):  # force_gpu_interpret_mode's `with`
    prev, self._local = self._local, new
    return prev

  def set_local(self, value):
    self._local = value

  def set_global(self, value):  # set_gpu_interpret_mode
    self._global = value

  def __getattr__(self, name):
    return getattr(self._real, name)


def _own_interpret(path, state, launches):
  """What replaces a launch's own interpret=, or None to keep it. GPU
  interpret mode through the params: the params JAX would use as written
  (the fixture's process-wide mode's, else the launch's own, else
  InterpretGPUParams()); params other than the defaults are noted
  (`launches.custom_params`): the process-wide default mode drops them."""
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  if path == "gpu-interpret":
    def params(own):
      mode = state.fixture_mode()
      chosen = (mode if isinstance(mode, InterpretGPUParams) else
                own if isinstance(own, InterpretGPUParams) else InterpretGPUParams())
      launches.custom_params |= chosen != InterpretGPUParams()
      return chosen
    return params
  if path == "compiled":
    return lambda own: False
  return None


class Launches:
  """Which launches JAX ran: for each, the places in the fixtures tree on the
  stack when it was built and when it ran (a launch of the path matrix ran
  when its own line is among them). A launch built and never called is not
  counted."""

  def __init__(self, root):
    self.root = root + os.sep
    self.sites = set()
    self.custom_params = False

  def frames(self):
    return [(os.path.abspath(f.filename), f.lineno) for f in traceback.extract_stack()
            if not f.filename.startswith("<") and os.path.abspath(f.filename).startswith(self.root)]

  def ran(self, built):
    self.sites.update(built)
    self.sites.update(self.frames())

  def when_called(self, fn, built):
    def launch(*args, **kwargs):
      self.ran(built)
      return fn(*args, **kwargs)
    return launch


@contextlib.contextmanager
def forced(path, launches):
  """JAX runs every launch made inside on `path` (FORCED_PATHS); the
  launches that run are recorded in `launches` (Launches)."""
  from jax._src import config
  from jax._src.pallas import core as pallas_core
  from jax._src.pallas import mpmd
  from jax._src.pallas import pallas_call
  from jax._src.pallas.mosaic_gpu import core as mgpu_core
  from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
  from jax.experimental.pallas import mosaic_gpu as plgpu
  assert path in FORCED_PATHS, path
  value = {"interpret": True, "gpu-interpret-mode": InterpretGPUParams()}.get(path)
  real_state = config.pallas_tpu_interpret_mode_context_manager
  state = _ForcedMode(real_state, value)
  replace = _own_interpret(path, state, launches)
  real_pallas_call, real_mpmd_map = pallas_call._pallas_call, mpmd._mpmd_map
  real_gpu_kernel = mgpu_core.kernel
  core_map_p = pallas_core.core_map_p
  real_bind = core_map_p.bind

  def launch_api(fn):
    """A builder (`_pallas_call`, `_mpmd_map`): the interpret= it passes on
    replaced, and the function it returns recorded when called."""
    def wrapper(*args, **kwargs):
      if replace:
        kwargs["interpret"] = replace(kwargs.get("interpret", False))
      built = launches.frames()
      try:
        out = fn(*args, **kwargs)
      except Exception:
        launches.ran(built)  # JAX rejected the launch as it was built
        raise
      return launches.when_called(out, built)
    return wrapper

  def bind(*args, **kwargs):  # core_map: built and run at once
    if replace:
      kwargs["interpret"] = replace(kwargs.get("interpret", False))
    launches.ran(())
    return real_bind(*args, **kwargs)

  def gpu_kernel(*args, **kwargs):
    # plgpu.kernel builds its mpmd_map when its result is called: the
    # plgpu.kernel(...) call itself is the launch's place.
    built = launches.frames()
    try:
      out = real_gpu_kernel(*args, **kwargs)
    except Exception:
      launches.ran(built)
      raise
    if not args and "body" not in kwargs:  # the decorator: the kernel comes through here again
      return out
    return launches.when_called(out, built)

  config.pallas_tpu_interpret_mode_context_manager = state
  pallas_call._pallas_call = launch_api(real_pallas_call)
  mpmd._mpmd_map = launch_api(real_mpmd_map)
  mgpu_core.kernel = plgpu.kernel = gpu_kernel
  core_map_p.bind = bind
  try:
    yield
  finally:
    config.pallas_tpu_interpret_mode_context_manager = real_state
    pallas_call._pallas_call, mpmd._mpmd_map = real_pallas_call, real_mpmd_map
    mgpu_core.kernel = plgpu.kernel = real_gpu_kernel
    vars(core_map_p).pop("bind", None)  # the class's method again
