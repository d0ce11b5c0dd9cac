"""Generates a corpus where EVERY file is a Pallas Mosaic GPU kernel module,
for `check` next to `ruff check` on kernel-only code (issue 12).

The files are varied the way a kernel repository is: tiled matmuls through
`pl.pallas_call` with block specs, scratch and compiler params; matmuls with
`plgpu.wgmma` under `pl.run_scoped`; `plgpu.kernel` launches that drive
`plgpu.emit_pipeline`; attention pieces (online softmax over a sequential
axis, with `pl.when` initialisation and a `fori_loop`); helpers holding an
`inline_mgpu` region called from a kernel; warp-specialised bodies under
`pl.core_map(plgpu.WarpMesh(...))`; plus the ordinary Python around kernels
(constants, reference implementations, a `__main__` block). Most files
report nothing; about one in `--finding-every` holds a mistake JAX rejects
(an `interpret=True` launch reaching `inline_mgpu`, a pipeline over too much
shared memory), so the corpus also pays for findings and their fixes.

Deterministic: the same seed gives the same files.

usage: generate_kernels.py --out DIR [--files N] [--seed S] [--finding-every K]
              (import it: write_corpus(dest, files, seed, finding_every) -> (files, lines))
"""
import argparse
import pathlib
import random
import sys

HEADER = '''"""{doc}"""
{stdlib}import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
'''

DTYPES = ["jnp.float16", "jnp.bfloat16"]


def matmul_pc(rng, n, bad):
    bm, bn, bk = rng.choice([64, 128]), rng.choice([64, 128]), rng.choice([32, 64])
    stages = 2 if not bad else 4
    dtype = rng.choice(DTYPES) if not bad else "jnp.float16"
    if bad:  # 4 stages of (128, 64)+(64, 256)+(128, 256) f16 + f32 scratch: over the SMEM limit
        bm, bn, bk = 128, 256, 64
    act = rng.choice(["", "jnp.maximum(acc, 0.0)", "acc * jax.nn.sigmoid(acc)"])
    epilogue = f"    acc = acc_ref[...]\n    o_ref[...] = ({act or 'acc'}).astype(o_ref.dtype)\n"
    return f'''
M{n}, N{n}, K{n} = {rng.choice([512, 1024, 2048])}, {rng.choice([512, 1024])}, {rng.choice([1024, 4096])}
BLOCK_M{n}, BLOCK_N{n}, BLOCK_K{n} = {bm}, {bn}, {bk}


def matmul_kernel_{n}(a_ref, b_ref, o_ref, acc_ref):
  """Accumulates one (BLOCK_M, BLOCK_N) tile over the K axis."""

  @pl.when(pl.program_id(2) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  acc_ref[...] += jnp.float32({rng.randint(1, 9)}.0) * acc_ref[...]

  @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
  def _():
{epilogue}

def matmul_{n}(a, b, stages={stages}):
  grid = (M{n} // BLOCK_M{n}, N{n} // BLOCK_N{n}, K{n} // BLOCK_K{n})
  return pl.pallas_call(
      matmul_kernel_{n},
      grid=grid,
      in_specs=[
          pl.BlockSpec((BLOCK_M{n}, BLOCK_K{n}), lambda i, j, k: (i, k)),
          pl.BlockSpec((BLOCK_K{n}, BLOCK_N{n}), lambda i, j, k: (k, j)),
      ],
      out_specs=pl.BlockSpec((BLOCK_M{n}, BLOCK_N{n}), lambda i, j, k: (i, j)),
      out_shape=jax.ShapeDtypeStruct((M{n}, N{n}), a.dtype),
      scratch_shapes=[plgpu.SMEM((BLOCK_M{n}, BLOCK_N{n}), jnp.float32)],
      compiler_params=plgpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "sequential"),
          max_concurrent_steps=stages,
      ),
  )(a, b)


def matmul_{n}_reference(a, b):
  return jnp.dot(a.astype(jnp.float32), b.astype(jnp.float32)).astype(a.dtype)


def matmul_{n}_demo():
  a = jnp.ones((M{n}, K{n}), {dtype})
  b = jnp.ones((K{n}, N{n}), {dtype})
  return matmul_{n}(a, b)
'''


def wgmma(rng, n, bad):
    tile = 64
    nmul = rng.choice([1, 2, 4])
    dtype = rng.choice(DTYPES)
    return f'''
TILE{n} = {tile}
WG_M{n}, WG_K{n}, WG_N{n} = TILE{n}, TILE{n}, {nmul} * TILE{n}


def swizzled_{n}(dtype):
  elems = 128 // jnp.dtype(dtype).itemsize
  return (plgpu.TilingTransform((8, elems)), plgpu.SwizzleTransform(128))


def wgmma_kernel_{n}(a_ref, b_ref, o_ref):
  def body(acc_ref):
    plgpu.wgmma(acc_ref, a_ref, b_ref)
    plgpu.wgmma_wait(0)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(body, plgpu.ACC((WG_M{n}, WG_N{n})))


def wgmma_matmul_{n}(a, b):
  transforms = swizzled_{n}(a.dtype)
  return pl.pallas_call(
      wgmma_kernel_{n},
      in_specs=[plgpu.BlockSpec((WG_M{n}, WG_K{n}), lambda: (0, 0), transforms=transforms),
                plgpu.BlockSpec((WG_K{n}, WG_N{n}), lambda: (0, 0), transforms=transforms)],
      out_specs=plgpu.BlockSpec((WG_M{n}, WG_N{n}), lambda: (0, 0)),
      out_shape=jax.ShapeDtypeStruct((WG_M{n}, WG_N{n}), jnp.float32),
  )(a, b)


def wgmma_inputs_{n}():
  a = jnp.ones((WG_M{n}, WG_K{n}), {dtype})
  b = jnp.ones((WG_K{n}, WG_N{n}), {dtype})
  return a, b
'''


def pipeline(rng, n, bad):
    rows = rng.choice([256, 512, 1024])
    block = rng.choice([64, 128])
    cols = rng.choice([64, 128])
    op = rng.choice(["x_smem[...] * 2.0", "x_smem[...] + 1.0", "jnp.maximum(x_smem[...], 0.0)",
                                      "x_smem[...] * x_smem[...]"])
    return f'''
ROWS{n}, COLS{n} = {rows}, {cols}
PIPE_BLOCK{n} = {block}


def make_pipeline_kernel_{n}(block):
  def kernel(x_gmem, o_gmem):
    def body(indices, x_smem, o_smem):
      del indices
      o_smem[...] = {op}

    spec = pl.BlockSpec((block, COLS{n}), lambda i: (i, 0))
    plgpu.emit_pipeline(body, grid=(ROWS{n} // block,), in_specs=[spec],
                        out_specs=[spec])(x_gmem, o_gmem)

  return kernel


def pipelined_{n}(x):
  return plgpu.kernel(make_pipeline_kernel_{n}(PIPE_BLOCK{n}),
                      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
'''


def attention(rng, n, bad):
    block_q = rng.choice([64, 128])
    block_k = rng.choice([64, 128])
    head = rng.choice([64, 128])
    seq = rng.choice([1024, 2048, 4096])
    scale = rng.choice(["0.125", "0.088", "1.0 / 8.0"])
    return f'''
SEQ{n}, HEAD{n} = {seq}, {head}
BLOCK_Q{n}, BLOCK_KV{n} = {block_q}, {block_k}
SCALE{n} = {scale}


def softmax_kernel_{n}(s_ref, o_ref, m_ref, l_ref):
  """One online-softmax step over a (BLOCK_Q, BLOCK_KV) tile of scores."""

  @pl.when(pl.program_id(1) == 0)
  def _():
    m_ref[...] = jnp.full_like(m_ref, -jnp.inf)
    l_ref[...] = jnp.zeros_like(l_ref)

  s = s_ref[...].astype(jnp.float32) * SCALE{n}
  m_prev = m_ref[...]
  m_new = jnp.maximum(m_prev, s.max(axis=-1, keepdims=True))
  p = jnp.exp(s - m_new)
  alpha = jnp.exp(m_prev - m_new)
  l_ref[...] = alpha * l_ref[...] + p.sum(axis=-1, keepdims=True)
  m_ref[...] = m_new

  def rescale(i, carry):
    return carry * alpha

  acc = jax.lax.fori_loop(0, 2, rescale, p)
  o_ref[...] = (acc / l_ref[...]).astype(o_ref.dtype)


def attention_scores_{n}(s):
  grid = (SEQ{n} // BLOCK_Q{n}, SEQ{n} // BLOCK_KV{n})
  spec = pl.BlockSpec((BLOCK_Q{n}, BLOCK_KV{n}), lambda i, j: (i, j))
  return pl.pallas_call(
      softmax_kernel_{n},
      grid=grid,
      in_specs=[spec],
      out_specs=spec,
      out_shape=jax.ShapeDtypeStruct(s.shape, s.dtype),
      scratch_shapes=[plgpu.SMEM((BLOCK_Q{n}, 1), jnp.float32),
                      plgpu.SMEM((BLOCK_Q{n}, 1), jnp.float32)],
      compiler_params=plgpu.CompilerParams(dimension_semantics=("parallel", "sequential")),
  )(s)


def attention_reference_{n}(q, k, v):
  s = jnp.einsum("qd,kd->qk", q, k) * SCALE{n}
  return jnp.einsum("qk,kd->qd", jax.nn.softmax(s, axis=-1), v)
'''


def inline_helper(rng, n, bad):
    interpret = "True" if bad else rng.choice(["False", "False", "None"])
    rows = rng.choice([8, 16, 32])
    return f'''

def fence_{n}(ref):
  """An inline Mosaic GPU region over one ref (a fence before the store)."""

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(ref)


def scaled_kernel_{n}(x_ref, y_ref, o_ref):
  x = x_ref[...]
  y = y_ref[...]
  acc = x * {rng.randint(1, 7)}.0 + y
  acc = jnp.where(acc > 0, acc, 0.0)
  o_ref[...] = acc.astype(o_ref.dtype)
  fence_{n}(o_ref)


def scaled_{n}(x, y, interpret={interpret}):
  spec = pl.BlockSpec(({rows}, 128), lambda r: (r, 0))
  return pl.pallas_call(
      scaled_kernel_{n},
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(x.shape[0] // {rows},),
      in_specs=[spec, spec],
      out_specs=spec,
      interpret=interpret,
  )(x, y)
'''


def warp_mesh(rng, n, bad):
    return f'''

def warp_kernel_{n}(x_ref, o_ref, barrier):
  @pl.core_map(plgpu.WarpMesh(axis_name="warp"))
  def _():
    plgpu.barrier_test(barrier)

  o_ref[...] = x_ref[...] {rng.choice(["+ 1.0", "* 0.5", ""])}


def warp_specialised_{n}(x):
  return plgpu.kernel(warp_kernel_{n}, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                      scratch_shapes=[plgpu.Barrier()])(x)
'''


def reduction(rng, n, bad):
    block = rng.choice([128, 256])
    return f'''
RED_BLOCK{n} = {block}


def row_sum_kernel_{n}(x_ref, o_ref, acc_ref):
  @pl.when(pl.program_id(1) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  acc_ref[...] += x_ref[...].astype(jnp.float32).sum(axis=-1, keepdims=True)

  @pl.when(pl.program_id(1) == pl.num_programs(1) - 1)
  def _():
    o_ref[...] = acc_ref[...].astype(o_ref.dtype)


@functools.partial(jax.jit, static_argnames=("block",))
def row_sum_{n}(x, block=RED_BLOCK{n}):
  rows, cols = x.shape
  return pl.pallas_call(
      row_sum_kernel_{n},
      grid=(rows // 64, cols // block),
      in_specs=[pl.BlockSpec((64, block), lambda i, j: (i, j))],
      out_specs=pl.BlockSpec((64, 1), lambda i, j: (i, 0)),
      out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
      scratch_shapes=[plgpu.SMEM((64, 1), jnp.float32)],
      compiler_params=plgpu.CompilerParams(dimension_semantics=("parallel", "sequential")),
  )(x)
'''


# Kernel kinds and how likely each is in a file. `bad` flips a kind into its
# rejected twin where it has one (inline helper under interpret=True, matmul
# pipelined over the SMEM limit).
KINDS = [(matmul_pc, 3), (wgmma, 2), (pipeline, 2), (attention, 2), (inline_helper, 2),
         (warp_mesh, 1), (reduction, 2)]
BAD_KINDS = [inline_helper, matmul_pc]


def module(rng: random.Random, index: int, finding: bool) -> str:
    count = rng.randint(2, 5)
    kinds = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS], k=count)
    bad_at = rng.randrange(count) if finding else -1
    if finding:
        kinds[bad_at] = rng.choice(BAD_KINDS)
    # Only what the file uses (ruff would report the rest, and count it).
    stdlib = "import functools\n\n" if reduction in kinds else ""
    parts = [HEADER.format(doc=f"Kernels, set {index}: " + ", ".join(k.__name__ for k in kinds) + ".",
                           stdlib=stdlib)]
    for n, kind in enumerate(kinds):
        parts.append(kind(rng, f"{index}_{n}", n == bad_at))
    parts.append(f'''

def main():
  x = jnp.ones((1024, 128), jnp.float32)
  print("set {index}", x.shape)


if __name__ == "__main__":
  main()
''')
    return "".join(parts)


def write_corpus(dest: pathlib.Path, files: int = 200, seed: int = 12,
                 finding_every: int = 8) -> tuple[int, int]:
    """Writes `files` kernel modules under dest (a few packages); returns (files, lines)."""
    rng = random.Random(seed)
    lines = 0
    for i in range(files):
        folder = dest / f"kernels_{i // 25:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = module(rng, i, finding_every > 0 and i % finding_every == finding_every - 1)
        (folder / f"kernel_set_{i:04d}.py").write_text(text)
        lines += text.count("\n")
    return files, lines


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--finding-every", type=int, default=8,
                    help="one file in K holds a mistake JAX rejects (0: none)")
    a = ap.parse_args()
    files, lines = write_corpus(pathlib.Path(a.out), a.files, a.seed, a.finding_every)
    print(f"{files} files, {lines} lines under {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
