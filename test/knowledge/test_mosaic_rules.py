"""Issue 17's rule numbers (analysis/knowledge/pallas_jax_facts/mosaic_rules.py):
found in the installed JAX, and the ones that can be checked without a GPU
hold in real JAX."""
import ast
import json
import os
import sys

import jax
import jax.numpy as jnp
import pytest
from jax.experimental.pallas import mosaic_gpu as plgpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOWLEDGE = os.path.join(ROOT, "analysis", "knowledge")
sys.path.insert(0, KNOWLEDGE)
from pallas_jax_facts import mosaic_rules as extract_mosaic_rules  # noqa: E402
from pallas_jax_facts.source_ast import _exception_name, _string_template  # noqa: E402


@pytest.fixture(scope="module")
def rules():
  with open(os.path.join(KNOWLEDGE, f"jax-{jax.__version__}.json"), encoding="utf-8") as f:
    return json.load(f)["mosaicGpuRules"]


def test_every_rule_is_found_with_its_numbers(rules):
  missing = [k for k, v in rules.items() if k != "wgmmaAccumulatorDtypes" and not v.get("found")]
  assert not missing
  assert rules["wgmmaN"]["nMax"] == 256 and rules["wgmmaAccumulatorShape"]["rowsMultiple"] == 64
  assert rules["tmaBoxMax"]["maxElems"] == 256 and rules["laneCopyBytes"]["bytesMultiple"] == 128
  assert set(rules["wgmmaAccumulatorDtypes"]) >= {"float16", "bfloat16", "float32", "int8"}


def test_allowed_swizzles_are_what_swizzle_transform_accepts(rules):
  allowed = rules["swizzleAllowed"]["allowed"]
  for swizzle in (8, 16, 32, 48, 64, 96, 128, 256):
    if swizzle in allowed:
      plgpu.SwizzleTransform(swizzle)
    else:
      with pytest.raises(ValueError) as err:
        plgpu.SwizzleTransform(swizzle)
      template = rules["swizzleAllowed"]["template"]
      assert str(err.value) == template.replace("{self.swizzle}", str(swizzle))


def test_swizzle_minor_tile_is_what_the_transform_checks(rules):
  from jax._src import core as jax_core  # noqa: PLC0415
  bits = rules["swizzleMinorTile"]["bitsPerByte"]
  for dtype in (jnp.float16, jnp.float32, jnp.int8):
    minor = 128 * bits // (jnp.dtype(dtype).itemsize * 8)
    plgpu.SwizzleTransform(128).transform_type(jax_core.ShapedArray((8, minor), dtype))
    with pytest.raises(ValueError, match="requires the trailing dimension"):
      plgpu.SwizzleTransform(128).transform_type(jax_core.ShapedArray((8, minor * 2), dtype))


def test_tiling_that_does_not_divide_fails_on_a_bare_assert(rules):
  from jax._src import core as jax_core  # noqa: PLC0415
  assert rules["tilingDivides"]["exception"] == "AssertionError"
  with pytest.raises(AssertionError) as err:
    plgpu.TilingTransform((8, 64)).transform_type(jax_core.ShapedArray((64, 96), jnp.float16))
  assert str(err.value) == rules["tilingDivides"]["template"]


def test_a_rule_that_moved_is_not_found():
  # Another JAX without the anchors: nothing is guessed.
  empty = lambda name: ast.parse("def wgmma():\n  pass\n")  # noqa: E731
  table = extract_mosaic_rules.mosaic_gpu_rules(empty, _string_template,
                                                _exception_name)
  assert not any(v.get("found") for k, v in table.items() if k != "wgmmaAccumulatorDtypes")
  assert table["wgmmaAccumulatorDtypes"] == {}
  gone = extract_mosaic_rules.mosaic_gpu_rules(lambda name: None, _string_template,
                                               _exception_name)
  assert not any(v.get("found") for k, v in gone.items() if k != "wgmmaAccumulatorDtypes")
