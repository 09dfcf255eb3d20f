#!/usr/bin/env python3
"""visdb_canon.py - a .vis.db (msProbe graph_visualize's database) as canonical
rows, and the differences between two of them.

  visdb_canon.py A.vis.db             print the canonical rows, one JSON line each
  visdb_canon.py A.vis.db B.vis.db    compare: exit 0 equal, 1 differ (listed)

Canonical form: tb_config's row, every tb_stack row and every tb_nodes row,
keyed by their id; the JSON columns (sub_nodes, matched_node_link,
matched_distributed, input_data, output_data, parallel_merge_info,
stack_info, tool_tip, node_colors, rank_list, step_list) parsed, so key
order and spacing do not count; two values are equal when equal as text or
both numbers (a percentage too) within 1e-6 relative.  The indexes are
compared by name and columns.  Standard library only.
"""
import json
import math
import sqlite3
import sys

JSON_COLS = {"sub_nodes", "matched_node_link", "matched_distributed", "input_data", "output_data",
             "parallel_merge_info", "stack_info", "tool_tip", "node_colors", "rank_list", "step_list"}
REL = 1e-6


def load(path):
    db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)   # no -shm/-wal beside a stored file
    out = {}
    for table in ("tb_config", "tb_stack", "tb_nodes"):
        cur = db.execute("SELECT * FROM %s" % table)
        cols = [d[0] for d in cur.description]
        for row in cur:
            r = {}
            for c, v in zip(cols, row):
                if c in JSON_COLS and isinstance(v, str) and v != "":
                    try:
                        v = json.loads(v)
                    except ValueError:
                        v = ["<not JSON>", v]
                r[c] = v
            out[(table, r["id"])] = r
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"):
        out[("index", name)] = {"sql": " ".join(sql.split())}
    db.close()
    return out


def number(x):
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x), False
    if isinstance(x, str):
        t = x.strip()
        pct = t.endswith("%")
        try:
            return float(t[:-1] if pct else t), pct
        except ValueError:
            return None
    return None


def same(a, b):
    if a == b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    x, y = number(a), number(b)
    if x is None or y is None or x[1] != y[1]:
        return False
    u, v = x[0], y[0]
    if math.isnan(u) or math.isnan(v) or math.isinf(u) or math.isinf(v):
        return str(u) == str(v)
    return abs(u - v) <= 1e-12 + REL * max(abs(u), abs(v))


def where(a, b, path=""):
    """The first place two values differ, as text."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                return "%s.%s: only in the reference (%r)" % (path, k, b[k])
            if k not in b:
                return "%s.%s: only in ours (%r)" % (path, k, a[k])
            if not same(a[k], b[k]):
                return where(a[k], b[k], "%s.%s" % (path, k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y):
                return where(x, y, "%s[%d]" % (path, i))
    return "%s: ours %r, reference %r" % (path, str(a)[:300], str(b)[:300])


def diff(ours, ref, limit=20):
    """Differences of two loaded databases, as lines."""
    out = []
    for k in sorted(set(ref) - set(ours)):
        out.append("%s %s: missing from ours" % k)
    for k in sorted(set(ours) - set(ref)):
        out.append("%s %s: not in the reference" % k)
    for k in sorted(set(ours) & set(ref)):
        if not same(ours[k], ref[k]):
            out.append("%s %s: %s" % (k[0], k[1], where(ours[k], ref[k])))
    n = len(out)
    if n > limit:
        out = out[:limit] + ["... %d differences in all" % n]
    return out


def main():
    if len(sys.argv) == 2:
        for k, r in sorted(load(sys.argv[1]).items()):
            print(json.dumps([k[0], k[1], r], sort_keys=True, ensure_ascii=False))
        return 0
    if len(sys.argv) == 3:
        d = diff(load(sys.argv[1]), load(sys.argv[2]), limit=int(__import__("os").environ.get("VISDB_LIMIT", "20")))
        for line in d:
            print(line)
        return 1 if d else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
