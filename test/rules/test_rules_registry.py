"""The rule registry (analysis/include/pallas/analysis/Rules.def) is the one
list of finding codes. Everything else that names codes must agree with it:

* every registered rule has docs/codes/<CODE>.md (titled "<CODE>: <name>",
  stating its default severity), a row in README.md's codes table and one in
  docs/codes/README.md (with its name and default severity);
* every registered rule is produced by at least one fixture under test/ that
  marks it (`# expect: CODE/severity`): the real `pallas-lsp check` is run on
  the marked fixtures (with the fake CUDA driver as an H100, so hardware rules
  can fire) and must report the code in the marked file;
* no code that is not registered appears in the product sources, docs,
  tables, fixtures or tests; and no C++ product file spells a code as a string
  literal outside the registry (checks use RuleId).

Run by test/suites/25-check.sh; needs PALLAS_LSP_BIN (the built binary)."""
import json
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEF = ROOT / "analysis" / "include" / "pallas" / "analysis" / "Rules.def"
RULE = re.compile(r'PALLAS_RULE\(\s*(\w+),\s*"(PLS\d{3})",\s*"([a-z0-9-]+)",\s*(Error|Warning|Information|Hint),')
CODE = re.compile(r"\bPLS\d{3}\b")
MARK = re.compile(r"#\s*expect(?:\([\w.]+\))?:\s*(.*)$", re.M)
MARKED = re.compile(r"(PLS\d{3})/(\w+)")


def registry():
  rules = [(m.group(2), m.group(3), m.group(4).lower()) for m in RULE.finditer(DEF.read_text())]
  assert rules, f"no PALLAS_RULE entries parsed from {DEF}"
  return rules


RULES = registry()
CODES = {code for code, _, _ in RULES}


def tracked_files():
  out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                       capture_output=True, text=True).stdout.split()
  return [ROOT / p for p in out if (ROOT / p).is_file()]


def test_registry_codes_are_unique_and_ordered():
  codes = [c for c, _, _ in RULES]
  names = [n for _, n, _ in RULES]
  assert len(set(codes)) == len(codes), codes
  assert len(set(names)) == len(names), names
  assert codes == sorted(codes), "keep Rules.def in code order"


@pytest.mark.parametrize("code,name,severity", RULES)
def test_rule_has_a_docs_page(code, name, severity):
  page = ROOT / "docs" / "codes" / f"{code}.md"
  assert page.is_file(), f"{code}: docs/codes/{code}.md is missing"
  text = page.read_text()
  assert text.startswith(f"# {code}: {name}\n"), f"{page}: title must be '# {code}: {name}'"
  assert f"Default severity: **{severity}**" in text, f"{page}: must state 'Default severity: **{severity}**'"


@pytest.mark.parametrize("code,name,severity", RULES)
def test_rule_has_a_row_in_both_tables(code, name, severity):
  readme = (ROOT / "README.md").read_text()
  row = re.search(rf"^\| \[{code}\]\(docs/codes/{code}\.md\) \|.*\| {severity} \|$", readme, re.M)
  assert row, f"README.md: no codes-table row '| [{code}](docs/codes/{code}.md) | ... | {severity} |'"
  codes_readme = (ROOT / "docs" / "codes" / "README.md").read_text()
  row = re.search(rf"^\| \[{code}\]\({code}\.md\) \| {re.escape(name)} \| {severity} \|", codes_readme, re.M)
  assert row, f"docs/codes/README.md: no row '| [{code}]({code}.md) | {name} | {severity} | ...'"


def test_tables_and_pages_name_only_registered_codes():
  pages = {p.stem for p in (ROOT / "docs" / "codes").glob("PLS*.md")}
  assert pages <= CODES, f"docs/codes pages of unregistered codes: {sorted(pages - CODES)}"
  for table in [ROOT / "README.md", ROOT / "docs" / "codes" / "README.md"]:
    rows = set(re.findall(r"^\| \[(PLS\d{3})\]", table.read_text(), re.M))
    assert rows <= CODES, f"{table}: rows of unregistered codes {sorted(rows - CODES)}"


def test_no_unregistered_code_is_used():
  unknown = {}
  for path in tracked_files():
    if path.suffix not in {".cpp", ".h", ".def", ".py", ".md", ".sh", ".lua", ".ts", ".json", ".toml", ".txt"}:
      continue
    try:
      text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
      continue
    for code in set(CODE.findall(text)) - CODES:
      unknown.setdefault(code, []).append(str(path.relative_to(ROOT)))
  assert not unknown, f"codes used but not registered in Rules.def: {unknown}"


def test_product_code_takes_codes_from_the_registry():
  literal = re.compile(r'"PLS\d{3}"')
  offenders = []
  for top in ["analysis", "server", "gpu", "protocol"]:
    for path in (ROOT / top).rglob("*"):
      if path.suffix not in {".cpp", ".h"}:
        continue
      code = [line.split("//")[0] for line in path.read_text(encoding="utf-8").splitlines()]
      if any(literal.search(line) for line in code):
        offenders.append(str(path.relative_to(ROOT)))
  assert not offenders, f"spell codes as RuleId (pallas/analysis/Rules.h), not string literals: {offenders}"


def marked_fixtures():
  """{fixture file: {code}} for every file under test/ with `# expect:` marks."""
  out = {}
  for path in (ROOT / "test").rglob("*.py"):
    if "fixtures" not in path.parts:
      continue
    codes = {c for line in MARK.findall(path.read_text(encoding="utf-8")) for c, _ in MARKED.findall(line)}
    if codes:
      out[path] = codes
  return out


def fake_libcuda(binary):
  for cand in [os.environ.get("PALLAS_LSP_FAKE_LIBCUDA", ""),
               str(pathlib.Path(binary).resolve().parents[1] / "test" / "gpu" / "libfakecuda.so")]:
    if cand and os.path.exists(cand):
      return cand
  pytest.fail("the fake CUDA driver (target pallas_fake_libcuda) is not built; set PALLAS_LSP_FAKE_LIBCUDA")


def test_every_rule_is_produced_by_a_marked_fixture(tmp_path):
  binary = os.environ.get("PALLAS_LSP_BIN")
  assert binary and os.path.exists(binary), "set PALLAS_LSP_BIN to the built pallas-lsp"
  fixtures = marked_fixtures()
  marked = {c for codes in fixtures.values() for c in codes}
  assert marked <= CODES, f"fixtures mark unregistered codes: {sorted(marked - CODES)}"
  missing = CODES - marked
  assert not missing, f"no fixture under test/ marks (# expect: CODE/severity) {sorted(missing)}"
  # One check run per fixture folder (helpers beside the fixtures resolve).
  folders = sorted({next(p for p in f.parents if p.name == "fixtures") for f in fixtures})
  # An analysis budget of 8 KiB (every other fixture is under 2.1 KB), so a
  # committed fixture can be over it (PLS010) without weighing megabytes.
  env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PALLAS_LSP_LIBCUDA=fake_libcuda(binary),
             FAKE_CUDA_DEVICES="NVIDIA H100@9.0@80", PALLAS_LSP_ANALYSIS_MAX_BYTES="8192")
  produced = {}
  for folder in folders:
    run = subprocess.run([binary, "check", "--format", "json", "--no-config", "."], cwd=folder, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), f"check in {folder}: exit {run.returncode}\n{run.stderr[-2000:]}"
    for f in json.loads(run.stdout)["findings"]:
      produced.setdefault((folder / f["path"]).resolve(), set()).add(f["code"])
  for code in sorted(CODES):
    files = [f for f, codes in fixtures.items() if code in codes]
    assert any(code in produced.get(f.resolve(), set()) for f in files), \
        f"{code}: none of its marked fixtures produces it: {[str(f.relative_to(ROOT)) for f in files]}"
