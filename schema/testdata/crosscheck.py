#!/usr/bin/env python3
"""Validate NDJSON files against evtool's schemas with python-jsonschema.

This is the non-Go half of the portability check: it loads each schema file
as any other tool would and validates every line with Draft 2020-12.

Usage: crosscheck.py MANIFEST
MANIFEST is a JSON list of {"schema": PATH, "file": PATH, "expect": "valid"|"invalid"}.
For "valid", every line must validate; for "invalid", every line must fail.
Prints one line per failing case and a closing "N passed, N failed" line.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("crosscheck: python3 has no jsonschema module (apt-get install python3-jsonschema)")


def main(manifest_path):
    with open(manifest_path) as f:
        cases = json.load(f)
    validators = {}
    passed = failed = 0
    for case in cases:
        path = case["schema"]
        if path not in validators:
            with open(path) as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            validators[path] = jsonschema.Draft202012Validator(schema)
        v = validators[path]
        with open(case["file"], encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                errors = list(v.iter_errors(json.loads(line)))
                ok = (not errors) if case["expect"] == "valid" else bool(errors)
                if ok:
                    passed += 1
                    continue
                failed += 1
                if errors:
                    why = "; ".join(f"{'/' + '/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:3])
                else:
                    why = "validated, but was expected to fail"
                print(f"{case['file']}:{n}: {why}")
    print(f"crosscheck: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
