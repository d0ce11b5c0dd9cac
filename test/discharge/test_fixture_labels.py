"""Every discharge fixture says whether its `# expect:` marks were checked
against JAX (issue 19): either a `# jax:` header (the PLS004 fixtures, run by
test_pls004_real_jax.py), or a golden label

    # golden: not checked against JAX because <reason>.
    # golden-jax-checked-by: test/oracle/fixtures/<fixture>.py ...

whose oracle fixtures run the JAX behaviour the golden relies on."""
import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
TOP = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".py"))
GOLDEN = re.compile(r"^# golden: not checked against JAX because (\S.{10,})$", re.M)
CHECKED_BY = re.compile(r"^# golden-jax-checked-by: (.+)$", re.M)


def _text(path):
  with open(path, encoding="utf-8") as f:
    return f.read()


@pytest.mark.parametrize("name", TOP)
def test_fixture_is_jax_checked_or_labelled_golden(name):
  text = _text(os.path.join(FIXTURES, name))
  jax = re.search(r"^# jax: \w+", text, re.M)
  golden = GOLDEN.search(text)
  assert bool(jax) != bool(golden), f"{name}: needs exactly one of '# jax: <outcome>' or '# golden: ...'"
  if jax:
    # test_pls004_real_jax.py runs the fixtures named pls004_*.
    assert name.startswith("pls004_"), f"{name} has a '# jax:' header that no test runs"
    return
  by = CHECKED_BY.search(text)
  assert by, f"{name}: a golden names the oracle fixtures that check its JAX facts (golden-jax-checked-by)"
  for rel in by.group(1).split():
    path = os.path.join(ROOT, rel)
    assert rel.startswith("test/oracle/fixtures/") and os.path.isfile(path), f"{name}: {rel} is not an oracle fixture"
    assert _text(path).startswith("# oracle: "), f"{name}: {rel} has no oracle header"


def test_helper_marks_name_labelled_fixtures():
  for folder, _, files in os.walk(os.path.join(FIXTURES, "pkg")):
    for f in files:
      for owner in re.findall(r"# expect\((\w+\.py)\)", _text(os.path.join(folder, f))):
        assert owner in TOP, f"pkg/{f} marks findings for {owner}, which is not a fixture"
