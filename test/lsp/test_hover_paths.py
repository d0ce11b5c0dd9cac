"""Hover on a launch shows its path matrix (docs/analysis.md §8, issue 11):
one line per path, each "no" with the primitive, its line and JAX's error."""
from test_findings_actions_hover import hover, open_doc, position_of

KERNEL = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = pl.reciprocal(x_ref[...], approx=True)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
"""


def test_hover_on_a_launch_lists_the_paths_that_can_run_it(ready, tmp_path):
    # The same kernel as oracle fixture compiled_pc_reciprocal (JAX: Mosaic GPU
    # has no rule for reciprocal) and interp_pc_reciprocal_ok (interpret runs).
    path = tmp_path / "launch.py"
    path.write_text(KERNEL)
    uri = open_doc(ready, path, KERNEL)
    line, col = position_of(KERNEL, "pl.pallas_call", 3)
    value = hover(ready, uri, line, col)["contents"]["value"]
    assert "**Paths that can run this launch:**" in value
    assert "- compiled, Hopper (sm_90a): no (`reciprocal` line 7: NotImplementedError" in value
    assert "- `interpret=True`: yes" in value
    assert "- GPU interpret mode: yes" in value
    # Not on other API calls.
    line, col = position_of(KERNEL, "pl.reciprocal", 3)
    assert "Paths that can run" not in hover(ready, uri, line, col)["contents"]["value"]
