# jax: pytrees as JAX flattens them (tree_leaves, tree_map).
import jax
import jax.numpy as jnp

params = {"proj": jnp.full((64, 128), 0.5, jnp.float32), "dense": jnp.ones((32, 128), jnp.float32)}
leaves = jax.tree_util.tree_leaves(params)
reveal(len(leaves))                                          # => 2
reveal(leaves[0].shape[0])                                   # => 32
reveal(sum(p.size for p in jax.tree_util.tree_leaves(params)))  # => 12288
reveal(len(jax.tree.leaves([1, (2, None), {"b": 3, "a": 4}])))  # => 4
reveal(jax.tree.leaves([1, (2, None), {"b": 3, "a": 4}])[2])  # => 4

doubled = jax.tree_util.tree_map(lambda p: p * 2, {"b": 1, "a": (2, 3)})
reveal(doubled["a"][1])                                      # => 6
reveal(list(doubled)[0])                                     # => "a"
summed = jax.tree.map(lambda x, y: x + y, [1, 2], [10, 20])
reveal(summed[1])                                            # => 22
reveal(jax.tree.map(lambda x: x, None))                      # => None


def scale(p):
    return p.shape[0]


reveal(jax.tree_util.tree_map(scale, params)["dense"])      # => 32
