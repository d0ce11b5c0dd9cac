"""Validates a SARIF log against the official SARIF 2.1.0 JSON schema.

The schema comes from the npm package @microsoft/jest-sarif (root
package.json, devDependencies): lib/schemas/sarif-2.1.0-rtm.5.json, the
final 2.1.0 schema (draft-04). Usage: validate_sarif.py ROOT LOG.json
Exits 0 when valid, 1 with every violation printed otherwise.
"""
import json
import pathlib
import sys

import jsonschema


def main() -> int:
    root, log_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    schema_path = root / "node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"
    schema = json.loads(schema_path.read_text())
    log = json.loads(log_path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    for error in errors:
        where = "/".join(str(p) for p in error.absolute_path)
        print(f"SARIF schema violation at /{where}: {error.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
