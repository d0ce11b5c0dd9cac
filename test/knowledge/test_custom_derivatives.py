"""The table's customDerivativeApis (analysis/knowledge/pallas_jax_facts/
custom_derivatives.py), read from JAX's source, against real JAX: every public
function of jax.nn, jax.numpy, jax.lax and jax.scipy.special that can be traced
on float arrays is traced, and the custom_jvp_call / custom_vjp_call equations
found (at any depth) must be what the table says: an unconditional entry
binds its primitive, a function without an entry binds none."""
import inspect
import json
import os
import warnings

import jax
import jax.extend
import jax.numpy as jnp
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOWLEDGE = os.path.join(ROOT, "analysis", "knowledge")
CUSTOM = {"custom_jvp_call", "custom_vjp_call"}
MODULES = {"jax.nn": jax.nn, "jnp": jnp, "lax": jax.lax, "jax.scipy.special": jax.scipy.special}


@pytest.fixture(scope="module")
def table():
  with open(os.path.join(KNOWLEDGE, f"jax-{jax.__version__}.json"), encoding="utf-8") as f:
    return json.load(f)


def _sub_jaxprs(value):
  if isinstance(value, jax.extend.core.ClosedJaxpr):
    yield value.jaxpr
  elif isinstance(value, jax.extend.core.Jaxpr):
    yield value
  elif isinstance(value, (tuple, list)):
    for item in value:
      yield from _sub_jaxprs(item)


def _custom_prims(jaxpr, out):
  """The custom-derivative primitives of a jaxpr and its sub-jaxprs."""
  for eqn in jaxpr.eqns:
    if eqn.primitive.name in CUSTOM:
      out.add(eqn.primitive.name)
    for value in eqn.params.values():
      for sub in _sub_jaxprs(value):
        _custom_prims(sub, out)
  return out


def _traced(fn):
  """The custom primitives `fn` binds on one, then two, then three f32
  arrays (in [0.1, 0.9], where every function here is defined); None when it
  takes none of those."""
  x = jnp.linspace(0.1, 0.9, 8 * 128, dtype=jnp.float32).reshape(8, 128)
  for n in (1, 2, 3):
    try:
      with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        closed = jax.make_jaxpr(fn)(*([x] * n))
    except Exception:  # noqa: BLE001 -- another signature; try the next
      continue
    return _custom_prims(closed.jaxpr, set())
  return None


def _public_functions():
  for alias, module in MODULES.items():
    for name in sorted(getattr(module, "__all__", None) or dir(module)):
      if name.startswith("_"):
        continue
      fn = getattr(module, name, None)
      if callable(fn) and not inspect.isclass(fn):
        yield f"{alias}.{name}", fn


def test_the_facts_jax_users_meet_are_found(table):
  apis = table["customDerivativeApis"]
  assert apis["jax.nn.relu"]["binds"] == "custom_jvp_call"
  assert apis["jax.nn.relu"]["inline"] == {"params": ["x"], "expr": "jnp.maximum(x, 0)"}
  assert apis["jax.nn.softplus"]["via"][:2] == ["jax.nn.softplus", "jnp.logaddexp"]
  assert not apis["jax.nn.softplus"]["conditional"]
  # jax.nn.softmax binds its custom_jvp only when jax_softmax_custom_jvp is
  # set; its default (read from jax._src.config) is False.
  assert "jax.nn.softmax" not in apis and "jax.nn.gelu" not in apis and "jax.nn.silu" not in apis


def test_every_traceable_public_function_agrees_with_the_table(table):
  apis = table["customDerivativeApis"]
  checked, wrong = 0, []
  for name, fn in _public_functions():
    found = _traced(fn)
    if found is None:
      continue
    checked += 1
    entry = apis.get(name)
    if entry is None:
      if found:
        wrong.append(f"{name}: JAX binds {sorted(found)}, the table has no entry")
    elif not entry["conditional"] and entry["binds"] not in found:
      wrong.append(f"{name}: the table says {entry['binds']} (via {entry['via']}), JAX binds {sorted(found)}")
  assert checked >= 300, checked
  assert not wrong, "\n".join(wrong)


def test_inline_expressions_compute_the_same_values(table):
  x = jnp.linspace(-3.0, 8.0, 64, dtype=jnp.float32)
  for name, entry in table["customDerivativeApis"].items():
    inline = entry.get("inline")
    if not inline:
      continue
    alias, _, attr = name.rpartition(".")
    want = getattr(MODULES[alias], attr)(x)
    got = eval(inline["expr"], {"jnp": jnp, "lax": jax.lax}, {inline["params"][0]: x})  # noqa: S307
    assert jnp.allclose(want, got), name
    # ... and bind no custom derivative.
    assert not _custom_prims(jax.make_jaxpr(lambda v, e=inline["expr"], p=inline["params"][0]: eval(  # noqa: S307
        e, {"jnp": jnp, "lax": jax.lax}, {p: v}))(x).jaxpr, set())


def test_the_wrappers_bind_what_the_table_says(table):
  """jax.custom_jvp / jax.custom_vjp (higherOrderApis) bind the primitives
  the table names, and Mosaic GPU's resource estimation has no estimator
  for them."""
  higher = table["higherOrderApis"]
  assert higher["jax.custom_jvp"]["binds"] == ["custom_jvp_call"]
  assert "custom_vjp_call" in higher["jax.custom_vjp"]["binds"]
  estimators = set(table["mosaicGpuResourceEstimators"])
  assert not estimators & CUSTOM

  @jax.custom_jvp
  def f(x):
    return x * 2.0

  f.defjvps(lambda g, ans, x: g * 2.0)

  @jax.custom_vjp
  def g(x):
    return x * 3.0

  g.defvjp(lambda x: (x * 3.0, None), lambda _, ct: (ct * 3.0,))
  assert _custom_prims(jax.make_jaxpr(f)(1.0).jaxpr, set()) == {"custom_jvp_call"}
  assert _custom_prims(jax.make_jaxpr(g)(1.0).jaxpr, set()) == {"custom_vjp_call"}
