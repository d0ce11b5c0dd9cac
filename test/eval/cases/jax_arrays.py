# jax: arrays and dtypes outside kernels (analysis/passes/PallasArrays.cpp),
# and the platform JAX picks here (PallasPlatform.cpp: no GPU in this run).
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

# A dtype is the same object whatever it is spelled.
reveal(jnp.dtype("float32") == jnp.float32)      # => True
reveal(jnp.float32 == jnp.bfloat16)              # => False
reveal(np.dtype("f2") == np.float16)             # => True
reveal(jnp.dtype(jnp.bfloat16).itemsize)         # => 2
reveal(np.dtype(np.float16).name)                # => "float16"
reveal(jnp.dtype("int8").kind)                   # => "i"
layouts = {jnp.dtype("float32"): "f32", jnp.dtype("bfloat16"): "bf16"}
reveal(layouts.get(jnp.dtype(jnp.bfloat16)))     # => "bf16"

# Arrays are their shape and dtype.
x = jnp.arange(256, dtype=jnp.float32).reshape(16, -1)
reveal(x.shape[1])                               # => 16
reveal(x.dtype == jnp.float32)                   # => True
reveal(x.T.shape[0])                             # => 16
reveal(x.ndim)                                   # => 2
reveal(x.size)                                   # => 256
reveal(x.nbytes)                                 # => 1024
reveal((x * 2.0).shape[0])                       # => 16
reveal((2 + x).dtype.name)                       # => "float32"
reveal(jnp.arange(10).dtype)                     # => jax.numpy.int32
reveal(jnp.arange(2, 10, 3).shape[0])            # => 3
y = jnp.linspace(-1.0, 1.0, 128 * 128, dtype=jnp.float32).reshape(128, 128)
reveal(y.shape[0] % 64)                          # => 0
k = jax.random.normal(jax.random.key(0), (64, 32), dtype=jnp.bfloat16)
reveal(k.dtype.itemsize)                         # => 2
reveal(layouts[jnp.dtype(k.dtype)])              # => "bf16"
rng = np.random.default_rng(0)
z = rng.standard_normal((8, 4)).astype(np.float32)
reveal(z.shape[1])                               # => 4
reveal(z.dtype == jnp.float32)                   # => True
reveal(rng.standard_normal((8, 4)).dtype.name)   # => "float64"
reveal(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]).shape[1])  # => 2
reveal(jnp.zeros_like(k).dtype.name)             # => "bfloat16"
reveal(jnp.full((2, 2), 3).dtype.name)           # => "int32"
reveal(jnp.ones(8).shape[0])                     # => 8

# The platform: this machine has no GPU.
reveal(jax.default_backend())                    # => "cpu"
reveal(jax.devices()[0].platform)                # => "cpu"
reveal(any(d.platform == "gpu" for d in jax.devices()))  # => False
reveal(jax.device_count())                       # => 1


def has_gpu():
    try:
        jax.devices("gpu")
    except RuntimeError:
        return False
    return True


reveal(has_gpu())                                # => False
reveal(len(jax.devices("cpu")))                  # => 1


# A function JAX traces for a jax.ShapeDtypeStruct receives an array of that
# shape and dtype (`jax.jit(f).trace(spec)`, `.lower(spec)`).
def traced(table, pair):
    rows = table.reshape(4, -1)
    reveal(rows.shape[1])                        # => 32
    reveal(table.dtype == jnp.int32)             # => True
    reveal(pair[1].ndim)                         # => 1


spec = jax.ShapeDtypeStruct((8, 16), jnp.int32)
jax.jit(traced).trace(spec, (spec, jax.ShapeDtypeStruct((3,), jnp.float32)))

# Pallas's pure sizing helpers, as their source computes them for ints.
reveal(plgpu.find_swizzle(64 * 16))              # => 128
reveal(plgpu.find_swizzle(32 * 16))              # => 64
reveal(pl.cdiv(9, 2))                            # => 5
reveal(pl.cdiv(-9, 2))                           # => -4
reveal(pl.cdiv(9, -2))                           # => -3
