"""Helpers that assemble the hand-written probe lines into invalid/*.jsonl files.

Every line below is written by hand; this script only splices one bad line
into a short valid stream, numbers lines, and writes EXPECT.tsv.
"""
import json, os, re

def deep_array(n):
    return "[" * n + "]" * n

def write_case(outdir, name, lines, bad_lineno, pointer, reason, expect):
    path = os.path.join(outdir, name + ".jsonl")
    data = "\n".join(lines) + "\n"
    with open(path, "wb") as f:
        # a lone \udcXX char in the text stands for the raw (non-UTF-8) byte 0xXX
        f.write(data.encode("utf-8", "surrogateescape"))
    assert name not in [e[0] for e in expect], name
    expect.append((name + ".jsonl", bad_lineno, pointer, reason))

def write_expect(path, expect):
    with open(path, "w", encoding="utf-8") as f:
        for e in sorted(expect):
            assert "\t" not in e[3] and "\n" not in e[3]
            f.write(f"{e[0]}\t{e[1]}\t{e[2]}\t{e[3]}\n")

class O(list):
    """An ordered JSON object: a list of (key, value) pairs."""

def _load(line):
    return json.loads(line, object_pairs_hook=O)

def _edit(node, path, fn):
    k = path[0]
    if isinstance(node, O):
        out = O()
        for kk, vv in node:
            if kk == k:
                if len(path) == 1:
                    r = fn(vv)
                    if r is not _DROP:
                        out.append((kk, r))
                    continue
                vv = _edit(vv, path[1:], fn)
            out.append((kk, vv))
        return out
    out = list(node)
    out[k] = fn(out[k]) if len(path) == 1 else _edit(out[k], path[1:], fn)
    return out

_DROP = object()
_MARK = "\u0001RAW\u0001"

def drop_key(line, *path):
    """Remove one member (by key path) from a one-line JSON object text, keeping key order."""
    line = line.replace("{seq}", "987654321")
    return dumps(_edit(_load(line), path, lambda v: _DROP)).replace("987654321", "{seq}")

def set_raw(line, *path_and_raw):
    """Replace the value at a key path with raw JSON text (for values Python would not emit)."""
    *path, raw = path_and_raw
    text = dumps(_edit(_load(line.replace("{seq}", "987654321")), path, lambda v: _MARK)).replace("987654321", "{seq}")
    assert text.count(json.dumps(_MARK)) == 1
    return text.replace(json.dumps(_MARK), raw)

def dumps(node):
    if isinstance(node, O):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(v) for k, v in node) + "}"
    if isinstance(node, list):
        return "[" + ",".join(dumps(x) for x in node) + "]"
    return json.dumps(node, ensure_ascii=False)
