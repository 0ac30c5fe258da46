#!/usr/bin/env python3
"""Validate NDJSON files against evtool's schemas with python-jsonschema.

This is the non-Go half of the portability check: it loads each schema file
as any other tool would and validates every line with Draft 2020-12.

Usage: crosscheck.py MANIFEST
MANIFEST is a JSON list of {"schema": PATH, "file": PATH, "expect": "valid"|"invalid"}.
For "valid", every line must validate; for "invalid", every line must fail.
With "acp": true, each line is a JSON-RPC message whose params (or result)
is validated against the matching $defs entry of the schema file, as the
ACP schema's own documentation prescribes: SessionNotification for
session/update, RequestPermissionRequest for session/request_permission,
PromptRequest for session/prompt, and PromptResponse or
RequestPermissionResponse for responses.
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

    def validator(path, ref=None):
        key = (path, ref)
        if key not in validators:
            with open(path) as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            if ref:
                schema = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": "#/$defs/" + ref}
            validators[key] = jsonschema.Draft202012Validator(schema)
        return validators[key]

    def acp_part(msg):
        method = msg.get("method")
        if method == "session/update":
            return "SessionNotification", msg.get("params")
        if method == "session/request_permission":
            return "RequestPermissionRequest", msg.get("params")
        if method == "session/prompt":
            return "PromptRequest", msg.get("params")
        if method and method.startswith("_") and "id" not in msg:
            return "ExtNotification", msg.get("params")
        result = msg.get("result") or {}
        if "stopReason" in result:
            return "PromptResponse", result
        if "outcome" in result:
            return "RequestPermissionResponse", result
        raise ValueError("not a message evtool writes: %r" % msg)

    for case in cases:
        path = case["schema"]
        with open(case["file"], encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                instance = json.loads(line)
                if case.get("acp"):
                    ref, instance = acp_part(instance)
                    v = validator(path, ref)
                else:
                    v = validator(path)
                errors = list(v.iter_errors(instance))
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
