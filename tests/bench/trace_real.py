#!/usr/bin/env python3
"""trace_real.py SRC OUT COPIES: a large profiler trace made from a real one
(for tests/bench: the trace reader's rate on real event shapes, e.g.
tests/data/traces/hta/rank3_of_8/control.json.gz, 35 MB inflated).  The
events of SRC (plain or gzip) are written COPIES times, each copy shifted
past the previous one in time, with its correlation ids and flow ids moved
out of the others' way (metadata events once), as Python's json writes
them.  COPIES 2, 8, 32 give about 62 MB, 248 MB and 993 MB (sizes 4x
apart)."""
import gzip
import json
import sys


def main():
    src, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
    with opener(src, "rt") as f:
        d = json.load(f)
    ev = d.pop("traceEvents")
    ts = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))]
    span = max(ts) - min(ts) + 1000
    with open(out, "w") as f:
        f.write('{"schemaVersion": 1, "distributedInfo": %s, "traceEvents": [\n' % json.dumps(d.get("distributedInfo", {})))
        first = True
        for k in range(copies):
            for e in ev:
                if k and e.get("ph") == "M":
                    continue
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = round(e2["ts"] + k * span, 3)
                a = e2.get("args")
                if k and isinstance(a, dict) and isinstance(a.get("correlation"), int):
                    a = dict(a)
                    a["correlation"] += k * 10000000
                    e2["args"] = a
                if k and isinstance(e2.get("id"), int):
                    e2["id"] += k * 10000000
                f.write(("" if first else ",\n") + json.dumps(e2))
                first = False
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
