"""A launch whose `interpret=` is a parameter takes what each caller passes,
and the caller may be another open document (docs/analysis.md 8.5). The
launch's file is analysed again whenever a document that imports from it is
opened, edited or closed, in whichever order the editor opens them: a
library opened before the script that calls it with interpret=True gets its
finding once the script is open, and loses it when the script passes False.
Real binary over pipes; nothing here measures time."""

from test_snapshots import open_doc

OPS = """import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


def add(x, interpret=False):
  out = jax.ShapeDtypeStruct(x.shape, x.dtype)
  return pl.pallas_call(kernel, out_shape=out, interpret=interpret)(x)
"""

DEBUG = """import jax.numpy as jnp
from lib.ops import add


def run():
  return add(jnp.ones((128,), jnp.float32), interpret=True)
"""


def published(server, uri, after, predicate):
    """The first publication for `uri` after message number `after` that
    satisfies `predicate` (its diagnostics)."""
    return server.first_after(
        after, lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri and predicate(m["params"]["diagnostics"]),
        timeout=60)["params"]["diagnostics"]


def errors(diagnostics):
    return [d for d in diagnostics if d["code"] == "PLS001" and d["severity"] == 1]


def test_a_caller_opened_after_the_launch_chooses_its_path_and_edits_change_it(server, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "lib" / "ops.py").write_text(OPS)
    # On disk the caller passes False (the server reads callers it has not
    # opened, 8.34); the editor's text, opened below, passes True.
    (tmp_path / "app" / "debug.py").write_text(DEBUG.replace("interpret=True", "interpret=False"))
    server.initialize(rootUri=tmp_path.as_uri(),
                      workspaceFolders=[{"uri": tmp_path.as_uri(), "name": "ws"}])
    ops = open_doc(server, tmp_path / "lib" / "ops.py", OPS)
    # interpret defaults to False and the caller on disk passes False: nothing.
    assert published(server, ops, 0, lambda d: True) == []
    server.log_message("caller index built")

    seen = len(server.seen)
    debug = open_doc(server, tmp_path / "app" / "debug.py", DEBUG)
    found = errors(published(server, ops, seen, lambda d: bool(errors(d))))
    assert len(found) == 1
    assert found[0]["range"]["start"]["line"] == 12  # fence(o_ref)
    assert "run" in found[0]["message"] or any(
        "run" in r["message"] for r in found[0].get("relatedInformation", [])), found[0]

    # The caller now passes False: compiled, where inline_mgpu lowers.
    seen = len(server.seen)
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": debug, "version": 2},
        "contentChanges": [{"text": DEBUG.replace("interpret=True", "interpret=False")}]})
    assert published(server, ops, seen, lambda d: not errors(d)) == []
