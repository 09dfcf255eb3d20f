#!/usr/bin/env python3
"""runpair_oracle: the difference of two monitor v1 trees, computed here
from their CSV files alone (no probetop code), to check `probetop compare
PROBLEM BENCH --format csv --metric M` and `--first` (tests/unit/test_trendpair.c).

  runpair_oracle.py PROBLEM BENCH --metric M [--threshold F] [--mapping JSON]
                    [--csv PROBETOP_CSV]

The rule (probetop(1), COMPARE TWO EXPERIMENTS): cells matched by metric,
statistic, target (name, vpp; the problem's names renamed by the mapping),
step and rank; values as float32; a cell parts when exactly one side is NaN,
or |p-b|/|b| (x/0 = inf, inf against the same inf = 0) is above F.  Prints
"first step S rank R target NAME" (or "first none"), the first parting cell
by step, then target, then rank, then statistic.  The target order is the
heat map's row order, probetop's target ids: with --csv the order of the
rows of probetop's table (a display convention, taken from it), else the
order of first appearance (rank 0's files by step, rows in order).  With
--csv, checks every row of probetop's table (cells, parted, first step and
rank, the largest |p-b|/|b|, the one-run-only rows: values computed here)
and exits 1 on a difference.
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import struct
import sys

SKIP = {"vpp_stage", "name", "step", "micro_step", "shape", "dtype"}


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0] if math.isfinite(x) else x


def read_tree(root, metric, mapping):
    """{target: {(step, rank): {stat: value}}}, target order, stat order."""
    vals, order, stats = {}, [], []
    dirs = []
    for d in glob.glob(os.path.join(root, "*")):
        m = re.search(r"-rank(\d+)-", os.path.basename(d))
        if m and os.path.isdir(d):
            dirs.append((int(m.group(1)), d))
    for rank, d in sorted(dirs):
        files = []
        for f in glob.glob(os.path.join(d, metric + "_*.csv")):
            m = re.fullmatch(re.escape(metric) + r"_(\d+)-(\d+)\.csv", os.path.basename(f))
            if m:
                files.append((int(m.group(1)), f))
        for _, f in sorted(files):
            with open(f, newline="") as fh:
                for row in csv.DictReader(fh):
                    name = row["name"]
                    for k, v in mapping:
                        name = name.replace(k, v)
                    # probetop-formats(5), MONITOR CSV TREES: every statistic (and shape,
                    # dtype) NaN or empty is a placeholder, no tensor: missing
                    t = (name, int(row.get("vpp_stage") or 0))
                    if t not in vals:
                        vals[t] = {}
                        order.append(t)
                    if all((v or "").strip().lower() in ("", "nan") for k, v in row.items()
                           if k not in ("vpp_stage", "name", "step", "micro_step")):
                        continue
                    cell = vals[t].setdefault((int(row["step"]), rank), {})
                    for k, v in row.items():
                        if k in SKIP or v is None or v == "":
                            continue
                        if k not in stats:
                            stats.append(k)
                        try:   # text that is no number (a bool tensor's True/False) is missing
                            cell[k] = f32(float(v))
                        except ValueError:
                            pass
    return vals, order, stats


def rel(p, b):
    if math.isnan(p) or math.isnan(b):
        return math.nan
    if math.isinf(p) or math.isinf(b):
        return 0.0 if p == b else math.inf
    d = abs(p - b)
    if d == 0:
        return 0.0
    if b == 0:
        return math.inf
    return f32(min(d / abs(b), 3.0e38))


def parts(p, b, thr):
    if math.isnan(p) or math.isnan(b):
        return math.isnan(p) != math.isnan(b)
    return not rel(p, b) <= thr


def worse(a, b):
    if math.isnan(b):
        return False
    if math.isnan(a):
        return True
    return a > b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("bench")
    ap.add_argument("--metric", required=True)
    ap.add_argument("--threshold", type=float, default=0.01)
    ap.add_argument("--mapping")
    ap.add_argument("--csv")
    a = ap.parse_args()
    mapping = list(json.load(open(a.mapping)).items()) if a.mapping else []
    P, porder, pstats = read_tree(a.problem, a.metric, mapping)
    B, _, bstats = read_tree(a.bench, a.metric, [])
    stats = [s for s in pstats if s in bstats]
    psteps = {s for t in P.values() for (s, _) in t}
    bsteps = {s for t in B.values() for (s, _) in t}
    pranks = {r for t in P.values() for (_, r) in t}
    branks = {r for t in B.values() for (_, r) in t}
    steps, ranks = sorted(psteps & bsteps), sorted(pranks & branks)
    rows, first = {}, None
    for t in porder:
        if t not in B:
            continue
        w = {"cells": 0, "parted": 0, "first": None, "max": None}
        for s in steps:
            for r in ranks:
                pc, bc = P[t].get((s, r), {}), B[t].get((s, r), {})
                for si, st in enumerate(stats):
                    if st not in pc or st not in bc:
                        continue
                    p, b = pc[st], bc[st]
                    w["cells"] += 1
                    if parts(p, b, a.threshold):
                        w["parted"] += 1
                        key = (s, r, si)
                        if w["first"] is None or key < w["first"]:
                            w["first"] = key
                    if math.isnan(p) and math.isnan(b):
                        continue
                    x = rel(p, b)
                    if w["max"] is None or worse(x, w["max"]):
                        w["max"] = x
        rows[t[0]] = w
    names = [t[0] for t in porder]
    if a.csv:
        with open(a.csv, newline="") as fh:
            names = [row["target"] for row in csv.DictReader(fh) if row["metric"] == a.metric]
    for ti, n in enumerate(names):
        w = rows.get(n)
        if w and w["first"]:
            s, r, si = w["first"]
            if first is None or (s, ti, r, si) < first[0]:
                first = ((s, ti, r, si), n)
    if first:
        (s, _, r, _), n = first
        print(f"first step {s} rank {r} target {n}")
    else:
        print("first none")
    if not a.csv:
        return 0
    bad = 0
    seen = set()
    only = {t[0] for t in P if t not in B} | {t[0] for t in B if t not in P}
    with open(a.csv, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["metric"] != a.metric:
                continue
            name = row["target"]
            if row["side"] != "both":
                if name not in only:
                    print(f"probetop says {name} is in one run only", file=sys.stderr)
                    bad = 1
                seen.add(name)
                continue
            w = rows.get(name)
            if w is None:
                print(f"probetop has a row for {name}, the oracle none", file=sys.stderr)
                bad = 1
                continue
            seen.add(name)
            got = (int(row["cells"]), int(row["parted"]), row["first_step"], row["first_rank"])
            want = (w["cells"], w["parted"], str(w["first"][0]) if w["first"] else "",
                    str(w["first"][1]) if w["first"] else "")
            if got != want:
                print(f"{name}: probetop {got}, oracle {want}", file=sys.stderr)
                bad = 1
            m = float(row["max_rel"]) if row["max_rel"] else None
            x = w["max"]
            same = (m is None and x is None) or (m is not None and x is not None and (
                (math.isnan(m) and math.isnan(x)) or m == x or abs(m - x) <= 1e-6 * max(abs(x), 1e-30)))
            if not same:
                print(f"{name}: max |p-b|/|b| probetop {m}, oracle {x}", file=sys.stderr)
                bad = 1
    missing = (set(rows) | only) - seen
    if missing:
        print(f"probetop's table lacks {len(missing)} targets, e.g. {sorted(missing)[0]}", file=sys.stderr)
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
