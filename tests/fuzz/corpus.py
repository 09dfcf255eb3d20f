#!/usr/bin/env python3
"""tests/fuzz/corpus.py FIXTURES OUT: seed corpora for the fuzz targets, cut
from the fixtures so each entry is small (a few KB: a fuzzer mutates a small
input thousands of times faster than a large one).

  dump, graph  the first records of every dump.json, with the construct.json
               and stack.json entries of those records (\\x1e between files)
  compare      the same records against a copy whose statistics and
               checksums drift (problem \\x1e bench \\x1e construct.json)
  json         the same dumps, and every small JSON file
  lexdiff      the same as json (the tokenizer's variants against each other)
  construct    construct.json / stack.json cut to their first entries
  monitor      the header and first rows of every monitor CSV (v1)
  monitor_v2   the same of every monitor_v2 CSV, after a byte naming its slug
  mapping, layermap, matchcfg, regex: names taken from the dumps

Entries that exist are kept (the corpora grow from run to run).  Python's
json module reads and writes msProbe's dialect (NaN, Infinity) as is."""
import hashlib
import json
import os
import sys

SEP = "\x1e"
fix, out = sys.argv[1], sys.argv[2]


def put(target, text):
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "fx-" + hashlib.sha1(data).hexdigest()[:16])
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(data)


def load(p):
    try:
        with open(p, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def drift(v):
    """v with every Max doubled and every md5 changed: a bench that differs."""
    if isinstance(v, dict):
        return {k: (x * 2 if k == "Max" and isinstance(x, (int, float)) and not isinstance(x, bool)
                    else "0" * 8 if k == "md5" else drift(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [drift(x) for x in v]
    return v


names = []
for root, dirs, files in sorted(os.walk(fix)):
    dirs.sort()
    if "dump.json" in files:
        dump = load(os.path.join(root, "dump.json"))
        cons = load(os.path.join(root, "construct.json")) if "construct.json" in files else None
        stack = load(os.path.join(root, "stack.json")) if "stack.json" in files else None
        if not isinstance(dump, dict) or not isinstance(dump.get("data"), dict):
            continue
        recs = list(dump["data"].items())
        names += [k for k, _ in recs[:200]]
        for start, count in ((0, 3), (0, 8), (len(recs) // 2, 6), (max(len(recs) - 5, 0), 5)):
            part = dict(recs[start:start + count])
            d = dict(dump)
            d["data"] = part
            dj = json.dumps(d, indent=1)
            c = {}
            if isinstance(cons, dict):
                c = {k: v for k, v in cons.items() if k in part or k == "megatron_micro_step_number"}
                for k, v in list(c.items()):
                    if isinstance(v, str) and v in cons:
                        c[v] = cons[v]
            s = {}
            if isinstance(stack, dict):
                for k, v in stack.items():
                    if k in part:
                        s[k] = v[:2] if isinstance(v, list) else v
                    elif isinstance(v, list) and len(v) == 2 and isinstance(v[0], list):
                        hit = [n for n in v[0] if n in part]
                        if hit:
                            s[k] = [hit, v[1][:2]]
            put("json", dj)
            put("lexdiff", dj)
            put("dump", dj + SEP + json.dumps(c, indent=1))
            put("graph", dj + SEP + json.dumps(c, indent=1) + SEP + json.dumps(s, indent=1))
            put("construct", json.dumps(c, indent=1))
            put("compare", dj + SEP + json.dumps(drift(d), indent=1) + SEP + json.dumps(c, indent=1))
            if s:
                put("construct", json.dumps(s, indent=1))
    for fn in files:
        p = os.path.join(root, fn)
        if fn.endswith(".json") and fn != "dump.json" and os.path.getsize(p) <= 8192:
            with open(p, "rb") as f:
                put("json", f.read())
            with open(p, "rb") as f:
                put("lexdiff", f.read())
            if fn in ("construct.json", "stack.json"):
                with open(p, "rb") as f:
                    put("construct", f.read())
        elif fn in ("construct.json", "stack.json"):
            v = load(p)
            if isinstance(v, dict):
                put("construct", json.dumps(dict(list(v.items())[:12]), indent=1))
        if fn.endswith(".csv") and "monitor_v2" in root:
            slugs = ("module", "weight_grad", "optimizer", "param", "cc")
            slug = next((i for i, sl in enumerate(slugs) if fn.startswith(sl)), 0)
            with open(p, "rb") as f:
                lines = f.read().splitlines(keepends=True)
            put("monitor_v2", bytes([slug]) + b"".join(lines[:12]))
            put("monitor_v2", bytes([slug]) + b"".join(lines[:1] + lines[-6:]))
        elif fn.endswith(".csv") and "monitor" in root:
            with open(p, "rb") as f:
                lines = f.read().splitlines(keepends=True)
            put("monitor", b"".join(lines[:12]))
            put("monitor", b"".join(lines[:1] + lines[-6:]))

names = [n for n in dict.fromkeys(names) if n.count(".") >= 3]
if names:
    a, b = names[0], names[min(3, len(names) - 1)]
    put("matchcfg", json.dumps({a: b, b: a}))
    put("mapping", json.dumps({a.split(".")[1]: "renamed", ".forward": ".fwd"}))
    parts = a.split(".")
    put("layermap", "%s:\n  %s: %s\n" % (parts[-3] if len(parts) > 3 else "Cell", parts[1], parts[1] + "_x"))
    for n in names[:20]:
        put("regex", "\x00" + n.split(".")[1] + r"\.\d+" + SEP + n)
