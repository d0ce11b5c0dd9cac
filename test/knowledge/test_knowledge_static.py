"""The static extractor (extract_knowledge_static.py: JAX's source read with
`ast`, nothing imported) against the import-based reference
(extract_knowledge.py) on the installed JAX, field by field; and the bundled
JAX 0.11.2 table against a fresh static read of JAX 0.11.2's wheel."""
import json
import os
import subprocess
import sys
import zipfile

import jax
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOWLEDGE = os.path.join(ROOT, "analysis", "knowledge")
SITE = os.path.dirname(os.path.dirname(os.path.abspath(jax.__file__)))
sys.path.insert(0, KNOWLEDGE)
import extract_knowledge_static  # noqa: E402

# Every field where the two extractors may differ, with the reason. Nothing
# else may differ.
EXPLAINED = {
    "/generator": "names the extractor that wrote the table",
    "/methods": "each extractor describes its own method",
    "/python": "the static read imports nothing, so no interpreter version applies (null)",
    "/numericApis": "found by tracing jnp/lax/jax.nn functions, which the static read cannot do (null)",
    "/numericPrimitives": "as /numericApis",
}


def _differences(ref, static, path=""):
  if isinstance(ref, dict) and isinstance(static, dict):
    for key in sorted(set(ref) | set(static)):
      sub = f"{path}/{key}"
      if key not in ref or key not in static:
        yield sub, ref.get(key, "<missing>"), static.get(key, "<missing>")
      else:
        yield from _differences(ref[key], static[key], sub)
  elif ref != static:
    yield path, ref, static


@pytest.fixture(scope="module")
def both():
  ref = json.loads(subprocess.run([sys.executable, os.path.join(KNOWLEDGE, "extract_knowledge.py")],
                                  capture_output=True, text=True, check=True).stdout)
  static = json.loads(subprocess.run(
      [sys.executable, "-I", os.path.join(KNOWLEDGE, "extract_knowledge_static.py"), SITE],
      capture_output=True, text=True, check=True).stdout)
  return ref, static


def test_static_and_import_based_tables_agree_field_by_field(both):
  ref, static = both
  assert static["primitives"] and static["apis"], "the static read found nothing"
  unexplained = [(p, r, s) for p, r, s in _differences(ref, static)
                 if not any(p == e or p.startswith(e + "/") for e in EXPLAINED)]
  assert not unexplained, "\n".join(f"{p}: import-based {json.dumps(r)[:200]} | static "
                                    f"{json.dumps(s)[:200]}" for p, r, s in unexplained)
  assert static["python"] is None and static["generator"].endswith("extract_knowledge_static.py")


def test_the_static_read_imports_no_jax():
  code = ("import sys; sys.path.insert(0, %r); import extract_knowledge_static as s; "
          "t = s.extract(%r); assert t['primitives'], 'empty'; "
          "bad = [m for m in sys.modules if m == 'jax' or m.startswith(('jax.', 'jaxlib'))]; "
          "assert not bad, bad" % (KNOWLEDGE, SITE))
  subprocess.run([sys.executable, "-I", "-c", code], check=True)


def test_both_record_the_default_lowering_semantics(both):
  from jax._src.pallas.mosaic_gpu import core as gpu_core  # noqa: PLC0415
  default = gpu_core.CompilerParams().lowering_semantics.name
  for table in both:
    assert table["mosaicGpuDefaults"]["loweringSemantics"] == default


def test_newer_syntax_is_read_by_the_pinned_python():
  # JAX 0.11 is written for Python 3.12 (PEP 695 generics, `type` aliases,
  # PEP 701 f-strings); the pinned 3.11 must still find its registrations.
  source = ("def f[T: int](x: T) -> T:\n  return x\n"
            "class C[T](Base):\n  pass\n"
            "type Alias = int | str\n"
            "msg = f\"{\".a\" if x else \"\"}.b\"\n"
            "p_p = core.Primitive(\"p\")\n")
  tree, rewrites, _ = extract_knowledge_static.parse_source(source)
  assert rewrites >= 1
  names = [n.name for n in tree.body if hasattr(n, "name")]
  assert names == ["f", "C"]
  assert tree.body[-1].lineno == 7  # lines are kept where they were


def _jax_0112_site(tmp_path_factory):
  """JAX 0.11.2's wheel (downloaded once from PyPI into build/, never committed), unpacked."""
  cache = os.path.join(ROOT, "build", "test-downloads")
  os.makedirs(cache, exist_ok=True)
  wheels = [f for f in os.listdir(cache) if f.startswith("jax-0.11.2-") and f.endswith(".whl")]
  if not wheels:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--python-version",
                    "3.12", "--only-binary=:all:", "jax==0.11.2", "-d", cache, "-q"], check=True)
    wheels = [f for f in os.listdir(cache) if f.startswith("jax-0.11.2-") and f.endswith(".whl")]
  site = tmp_path_factory.mktemp("jax0112")
  with zipfile.ZipFile(os.path.join(cache, wheels[0])) as z:
    z.extractall(site)
  return str(site)


def test_bundled_0_11_2_table_is_a_fresh_static_read_of_its_wheel(tmp_path_factory):
  site = _jax_0112_site(tmp_path_factory)
  fresh = subprocess.run([sys.executable, "-I", os.path.join(KNOWLEDGE, "extract_knowledge_static.py"),
                          site], capture_output=True, text=True, check=True).stdout
  with open(os.path.join(KNOWLEDGE, "jax-0.11.2.json"), encoding="utf-8") as f:
    assert fresh == f.read(), ("re-run: python -I analysis/knowledge/extract_knowledge_static.py "
                               "SITE -o analysis/knowledge/jax-0.11.2.json")
  table = json.loads(fresh)
  # What changed since 0.10.2 (docs/jax-facts.md), read from 0.11.2's source.
  assert table["mosaicGpuDefaults"]["loweringSemantics"] == "Warpgroup"
  assert "plgpu.mma" in table["apis"] and "mma" in table["apis"]["plgpu.mma"]["binds"]
  assert "plgpu.wait_gmem_to_smem" in table["apis"]
  # Discharge rules take a DischargeContext from one registry; eval_jaxpr
  # (which replaced closed_call) gained a discharge rule.
  assert table["primitives"]["eval_jaxpr"]["discharge"]["status"] == "exists"
  inline = table["primitives"]["inline_mgpu_p"]
  assert inline["discharge"]["status"] == "raises"
  assert inline["gpuInterpret"]["handling"] == "arm"  # GPU interpret mode runs inline_mgpu now
  assert table["primitives"]["tcgen05_mma"]["gpuInterpret"]["handling"] == "arm"
