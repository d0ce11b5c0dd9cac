"""One version number: CMakeLists.txt's project(pallas_lsp VERSION x.y.z) is
the source; every other place that states a version must agree with it.

usage: check_versions.py ROOT [NAME=VERSION_OR_TEXT ...]
Each NAME=TEXT pair is a version found elsewhere (a binary's `version`
output, a wheel's metadata, a vsix manifest...); TEXT must contain the version
as a whole word. Prints a table; exits 1 on any disagreement.
"""

import json
import pathlib
import re
import sys


def main():
    root = pathlib.Path(sys.argv[1])
    m = re.search(r"project\(pallas_lsp VERSION ([0-9]+\.[0-9]+\.[0-9]+)", (root / "CMakeLists.txt").read_text())
    assert m, "CMakeLists.txt: no project(pallas_lsp VERSION x.y.z)"
    want = m.group(1)
    found = {}
    vscode = root / "editors" / "vscode"
    found["editors/vscode/package.json"] = json.loads((vscode / "package.json").read_text())["version"]
    lock = json.loads((vscode / "package-lock.json").read_text())
    found["editors/vscode/package-lock.json"] = lock["version"]
    found["editors/vscode/package-lock.json (root package)"] = lock["packages"][""]["version"]
    heading = re.search(r"^## \[?([0-9]+\.[0-9]+\.[0-9]+)", (root / "CHANGELOG.md").read_text(), re.M)
    found["CHANGELOG.md (newest heading)"] = heading.group(1) if heading else "(none)"
    for pair in sys.argv[2:]:
        name, _, text = pair.partition("=")
        found[name] = want if re.search(rf"(?<![0-9.]){re.escape(want)}(?![0-9.])", text) else text.strip()
    bad = {k: v for k, v in found.items() if v != want}
    print(f"CMakeLists.txt project version: {want}")
    for name, v in found.items():
        print(f"  {'ok ' if v == want else 'BAD'} {name}: {v}")
    if bad:
        print("versions disagree: set it once with scripts/set-version.sh X.Y.Z", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
