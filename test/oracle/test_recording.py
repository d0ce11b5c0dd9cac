"""The recording half of the oracle: every fixture ran with real JAX and did
what its header and its `# <- blame` marker say. Passes without pallas-lsp."""
import os

import pytest

import oracle_run
import record

FIXTURES = record.fixture_paths()
BLAME_MARK = "# <- blame"


def _line(path, lineno):
  with open(path, encoding="utf-8") as f:
    return f.read().splitlines()[lineno - 1]


def test_corpus_covers_every_path_and_launch():
  headers = [oracle_run.parse_header(p) for p in FIXTURES]
  assert len(FIXTURES) >= 40
  assert {h["path"] for h in headers} >= {"interpret", "gpu-interpret", "compiled", "may"}
  launches = " ".join(h["launch"] for h in headers)
  for form in ("pallas_call", "pallas_call-decorator", "pallas_call-partial", "plgpu.kernel",
               "pl.kernel", "pl.core_map", "force_gpu_interpret_mode"):
    assert form in launches, form
  assert {h["expect"] for h in headers} >= {"ok", "error:NotImplementedError"}


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_fixture_recorded_as_declared(path, oracle_results):
  result = oracle_results[path]
  assert result["outcome"] in ("ok", "error"), result.get("message")
  expect = result["header"]["expect"]
  if expect == "ok":
    assert result["outcome"] == "ok", f"{result.get('errorType')}: {result.get('message')}"
    return
  assert result["outcome"] == "error", "JAX ran a fixture that declares an error"
  assert expect == f"error:{result['errorType']}", result["message"]
  blame = result["blame"]
  assert blame and blame["line"], f"no blamed line for: {result['message']}"
  assert BLAME_MARK in _line(blame["file"], blame["line"]), (
      f"JAX blames {blame['file']}:{blame['line']} (rule {blame['rule']}), not the marked line")


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_ok_fixtures_carry_no_blame_marker(path):
  with open(path, encoding="utf-8") as f:
    text = f.read()
  if "expect=ok" in text.splitlines()[0]:
    assert BLAME_MARK not in text
