"""Hover on a launch shows its shared-memory budget (PLS005, docs/codes/PLS005.md):
the total against the limit and its three largest contributors, the limit of
each target GPU; "at least" with what is unknown when a size is not in the
source."""
from test_findings_actions_hover import hover, open_doc, position_of

KERNEL = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

BLOCK = 128


def kernel(x_ref, o_ref, q_smem, k_smem, bar):
    o_ref[...] = x_ref[...]


def run(x, rows=BLOCK * 2):
    return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct((BLOCK,), jnp.float32),
                        scratch_shapes=[plgpu.SMEM((rows, BLOCK), jnp.float16),
                                        plgpu.SMEM((BLOCK, BLOCK * 3), jnp.float32),
                                        plgpu.Barrier(num_arrivals=1, num_barriers=2)])(x)


def partly_known(x, rows):
    return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct((BLOCK,), jnp.float32),
                        scratch_shapes=[plgpu.SMEM((rows, BLOCK), jnp.float16),
                                        plgpu.SMEM((BLOCK, BLOCK), jnp.float32),
                                        plgpu.Barrier()])(x)
"""


def test_hover_on_a_launch_shows_its_smem_budget(ready, tmp_path):
    path = tmp_path / "budget.py"
    path.write_text(KERNEL)
    uri = open_doc(ready, path, KERNEL)
    line, col = position_of(KERNEL, "plgpu.kernel", 3)
    value = hover(ready, uri, line, col)["contents"]["value"]
    # (128, 384) f32 = 192 KiB; (256, 128) f16 = 64 KiB; 2 barriers = 16 B.
    assert ("**Shared memory:** SMEM 262,160 / 232,448 B: k_smem (128, 384) float32 192 KiB, "
            "q_smem (256, 128) float16 64 KiB, barriers 16 B") in value, value
    # The limit of each GPU the compiled paths target: JAX's default, which its
    # source gives for compute capabilities 9.0 and 10.x (mosaicGpuSmemModel).
    assert ("**Limit per target GPU:** Hopper (sm_90a) 232448 B (29712 B over); "
            "Blackwell (sm_100a) 232448 B (29712 B over)") in value, value
    assert "compute capabilities 9.0 and 10.x" in value, value
    line = position_of(KERNEL, "def partly_known")[0] + 1
    col = KERNEL.split("\n")[line].index("plgpu.kernel") + 3
    value = hover(ready, uri, line, col)["contents"]["value"]
    assert "SMEM at least 65,544 / 232,448 B: k_smem (128, 128) float32 64 KiB, barriers 8 B" in value, value
    assert "(unknown: q_smem (rows))" in value, value
