"""The recording half of the oracle: every fixture ran with real JAX and did
what its header and its `# <- blame` marker say. Passes without pallas-lsp."""
import os
import re

import pytest

import oracle_run
import record

FIXTURES = record.fixture_paths()
# The default run's marker; an `also=<path>` run's is `# <- blame(<path>)`.
BLAME_MARK = re.compile(r"# <- blame(?!\()")


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
  # A run-time choice is checked on both of its paths somewhere.
  assert any(h.get("also") == "compiled" and h.get("also-expect", "").startswith("error:") for h in headers)


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_header_fields_are_consistent(path):
  h = oracle_run.parse_header(path)
  if h["path"] == "may":
    assert h.get("choice") in ("interpret", "gpu-interpret", "compiled"), "path=may needs choice=<the path run>"
  else:
    assert "choice" not in h and "also" not in h, "choice= and also= are for path=may"
  assert ("also" in h) == ("also-expect" in h), "also= and also-expect= go together"
  assert "also-code" not in h or "also" in h, "also-code= is the also= run's code"
  assert h.get("binds", "always") in ("always", "may"), h.get("binds")


def _check_run(path, result, expect, choice=None):
  assert result["outcome"] in ("ok", "error"), result.get("message")
  if expect == "ok":
    assert result["outcome"] == "ok", f"{result.get('errorType')}: {result.get('message')}"
    return
  assert result["outcome"] == "error", f"JAX ran {os.path.basename(path)} ({choice or 'default'}), which declares an error"
  assert expect == f"error:{result['errorType']}", result["message"]
  blame = result["blame"]
  assert blame and blame["line"], f"no blamed line for: {result['message']}"
  line = _line(blame["file"], blame["line"])
  marked = f"# <- blame({choice})" in line if choice else BLAME_MARK.search(line)
  assert marked, f"JAX blames {blame['file']}:{blame['line']} (rule {blame['rule']}), not the marked line"


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_fixture_recorded_as_declared(path, oracle_results):
  result = oracle_results[path]
  assert result["outcome"] in ("ok", "error"), result.get("message")
  _check_run(path, result, result["header"]["expect"])
  if "also" in result["header"]:
    also = result.get("also")
    assert also and also.get("choice") == result["header"]["also"], "the also= run was not recorded"
    _check_run(path, also, result["header"]["also-expect"], result["header"]["also"])


@pytest.mark.parametrize("path", FIXTURES, ids=os.path.basename)
def test_ok_fixtures_carry_no_blame_marker(path):
  with open(path, encoding="utf-8") as f:
    text = f.read()
  header = oracle_run.parse_header(path)
  if header["expect"] == "ok":
    assert not BLAME_MARK.search(text)
  if header.get("also-expect") == "ok":
    assert f"# <- blame({header['also']})" not in text
