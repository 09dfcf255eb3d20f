#!/usr/bin/env python3
"""check.py - one oracle check: run probetop on a stored case, compare with the
answer msProbe or HTA gave on the same input (tests/oracle/README.md).

Usage: check.py CASE_DIR/expected/CHECK.json
Environment: PT_BIN (the probetop binary), PT_SRC (the checkout), PT_TMP
(a scratch folder of this check's own).

The expected file is JSON:
  kind        what is run and how it is compared (the functions below)
  reference   the reference tool's answer (inline) or "ref": a file beside it
  pending     "<defect>": probetop is known to differ until that defect is
              fixed; the check is reported as skipped (exit 77)
  departure   why probetop's answer differs on purpose (a man page section);
              "ours" then holds probetop's answer and is what is checked
Exit 0 pass, 1 differ (each difference printed), 77 pending, 2 bad setup.
Standard library only: runs from a clone, without msProbe or HTA.
"""
import csv
import gzip
import io
import json
import math
import os
import re
import subprocess
import sys

REL = 1e-9     # numbers of msProbe's csv tables: its own float noise is ~1e-14
ABS = 1e-12


def die(msg):
    print("check.py: " + msg, file=sys.stderr)
    sys.exit(2)


class Ctx:
    def __init__(self, spec_path):
        self.spec_path = spec_path
        self.case = os.path.dirname(os.path.dirname(os.path.abspath(spec_path)))
        with open(spec_path, encoding="utf-8") as f:
            self.spec = json.load(f)
        self.bin = os.environ.get("PT_BIN") or die("PT_BIN is not set")
        self.src = os.environ.get("PT_SRC") or os.path.dirname(os.path.dirname(os.path.dirname(self.case)))
        self.tmp = os.environ.get("PT_TMP") or die("PT_TMP is not set")
        os.makedirs(self.tmp, exist_ok=True)
        self.diffs = []

    def path(self, rel):
        p = os.path.join(self.case, rel)
        if p.endswith(".db.gz"):
            # an msProbe database kept compressed: read from a copy in PT_TMP
            out = os.path.join(self.tmp, os.path.basename(p)[:-3])
            with gzip.open(p, "rb") as f, open(out, "wb") as g:
                g.write(f.read())
            return out
        return p

    def ref(self, key="reference"):
        """The reference answer: inline, or the file named by ref."""
        if "ref" in self.spec and key == "reference":
            with open(os.path.join(os.path.dirname(self.spec_path), self.spec["ref"]), encoding="utf-8") as f:
                return f.read()
        return self.spec[key]

    def run(self, args, ok=(0, 1)):
        cmd = [self.bin] + [self.path(a) if a.split("/")[0] in ("input", "msprobe") else a for a in args]
        cmd = [c if not c.startswith("@tmp/") else os.path.join(self.tmp, c[5:]) for c in cmd]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        # a sanitized build (PROBETOP_SANITIZE) may exit 1, a code some commands
        # answer with: its report on standard error is a failure in itself
        for mark in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            if mark in err:
                self.diff("`%s`: %s" % (" ".join(args), err[err.index(mark):][:400]))
        if p.returncode not in ok:
            self.diff("`%s` exited %d: %s" % (" ".join(args), p.returncode,
                                              p.stderr.decode("utf-8", "replace").strip()[:400]))
        return out

    def diff(self, msg):
        self.diffs.append(msg)


def num(s):
    """A cell as a number (msProbe's 12.5% included), or None."""
    t = s.strip()
    pct = t.endswith("%")
    if pct:
        t = t[:-1]
    try:
        return float(t), pct
    except ValueError:
        return None


def same_cell(a, b):
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is None or y is None or x[1] != y[1]:
        return False
    u, v = x[0], y[0]
    if math.isnan(u) or math.isnan(v) or math.isinf(u) or math.isinf(v):
        return str(u) == str(v)
    return abs(u - v) <= ABS + REL * max(abs(u), abs(v))


def table_diff(ctx, ours, theirs, what):
    """Tables row for row: same header, same rows, cells equal or numbers within REL."""
    a = list(csv.reader(io.StringIO(ours)))
    b = list(csv.reader(io.StringIO(theirs)))
    if not b:
        return ctx.diff("%s: the reference table is empty" % what)
    if not a or a[0] != b[0]:
        return ctx.diff("%s: header differs\n  ours:   %s\n  theirs: %s" % (what, a[0] if a else None, b[0]))
    if len(a) != len(b):
        ctx.diff("%s: %d rows, msProbe %d" % (what, len(a) - 1, len(b) - 1))
    shown = 0
    for i, (ra, rb) in enumerate(zip(a, b)):
        bad = [j for j in range(max(len(ra), len(rb)))
               if j >= len(ra) or j >= len(rb) or not same_cell(ra[j], rb[j])]
        if bad and shown < 10:
            shown += 1
            cols = ", ".join("%s: ours %r, theirs %r" % (b[0][j] if j < len(b[0]) else j,
                                                         ra[j] if j < len(ra) else None,
                                                         rb[j] if j < len(rb) else None) for j in bad[:4])
            ctx.diff("%s row %d (%s): %s" % (what, i, rb[0] if rb else "", cols))


def find_db(folder):
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(".trend.db"):
                return os.path.join(root, f)
    return None


def k_data2db(ctx):
    """data2db's database, printed by tests/trenddb_canon.py, equals msProbe's text."""
    out = os.path.join(ctx.tmp, "db")
    ctx.run(["data2db", "--data", ctx.spec["input"], "--db", out] + ctx.spec.get("args", []), ok=(0,))
    db = find_db(out)
    if db is None:
        return ctx.diff("data2db wrote no .trend.db under " + out)
    canon = subprocess.run([sys.executable, os.path.join(ctx.src, "tests", "trenddb_canon.py"), db],
                           stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    theirs = ctx.ref()
    if canon != theirs:
        la, lb = canon.splitlines(), theirs.splitlines()
        if len(la) != len(lb):
            ctx.diff("canonical text: %d lines, msProbe's %d" % (len(la), len(lb)))
        shown = 0
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y and shown < 10:
                shown += 1
                ctx.diff("line %d\n  ours:   %s\n  theirs: %s" % (i + 1, x, y))


def k_compare_csv(ctx):
    """compare --csv - on one (step, rank) pair: msProbe compare's table row for row."""
    ours = ctx.run(["compare", ctx.spec["problem"], ctx.spec["bench"], "--csv", "-"])
    table_diff(ctx, ours, ctx.ref(), "compare table")


COUNTS_RE = re.compile(r"^step (\d+) rank (\d+): (\d+) rows \(pass (\d+), warning (\d+), error (\d+)\)")


def k_compare_counts(ctx):
    """The compare headline's row counts (pass, warning, error) for one pair: msProbe's table's Result words."""
    rows = list(csv.DictReader(io.StringIO(ctx.ref())))
    theirs = {"rows": len(rows)}
    for w in ("pass", "warning", "error"):
        theirs[w] = sum(1 for x in rows if x["Result"] == w)
    other = sorted({x["Result"] for x in rows} - {"pass", "warning", "error"})
    if other:
        ctx.diff("msProbe's table has Result words probetop does not count: %s" % other)
    out = ctx.run(["compare", ctx.spec["problem"], ctx.spec["bench"]])
    m = next((COUNTS_RE.match(line) for line in out.splitlines() if COUNTS_RE.match(line)), None)
    if not m:
        return ctx.diff("compare printed no counts line:\n" + out[-400:])
    ours = dict(zip(("rows", "pass", "warning", "error"), (int(m.group(i)) for i in range(3, 7))))
    for k in ("rows", "pass", "warning", "error"):
        if ours[k] != theirs[k]:
            ctx.diff("%s: ours %d, msProbe's table %d" % (k, ours[k], theirs[k]))


FIRST_RE = re.compile(r"^(\S+)\t(\w+)\tstep (\d+)\trank (\d+)\t.*\tmicro step (\d+)\tin (.*)$")
# the headline: "first divergence", or in md5 mode the determinism rule's words
HEAD_RE = re.compile(r"^(?:first divergence|first nondeterministic operator \(inputs equal, outputs differ\)): "
                     r"(\S+) in (.*) \((\w+)\) at step (\d+), micro step (\d+), rank (\d+)$")


def first_line(ctx, problem, bench):
    out = ctx.run(["compare", problem, bench, "--first"])
    line = out.splitlines()[0] if out else ""
    m = FIRST_RE.match(line)
    if not m:
        ctx.diff("compare --first printed %r" % line)
        return None
    return {"node": m.group(1), "level": m.group(2), "step": int(m.group(3)), "rank": int(m.group(4)),
            "micro_step": int(m.group(5)), "module": m.group(6)}


def headline(ctx, problem, bench):
    out = ctx.run(["compare", problem, bench])
    for line in out.splitlines():
        m = HEAD_RE.match(line)
        if m:
            return {"node": m.group(1), "module": m.group(2), "level": m.group(3), "step": int(m.group(4)),
                    "micro_step": int(m.group(5)), "rank": int(m.group(6))}
    ctx.diff("compare printed no first-divergence line:\n" + out[-600:])
    return None


def same_fields(ctx, what, ours, theirs, keys):
    for k in keys:
        if k in theirs and (ours is None or ours.get(k) != theirs[k]):
            ctx.diff("%s %s: ours %r, theirs %r" % (what, k, None if ours is None else ours.get(k), theirs[k]))


def k_first(ctx):
    """compare --first: the first diverging node msProbe's graph compare marks."""
    theirs = ctx.ref()
    ours = first_line(ctx, ctx.spec["problem"], ctx.spec["bench"])
    same_fields(ctx, "--first", ours, theirs, ["node", "level", "step", "rank", "micro_step"])


def k_agree(ctx):
    """The compare headline and compare --first name the same node, step, micro step, rank;
    with a NaN, overflow's origin (text and json) names the rank --first prints."""
    p, b = ctx.spec["problem"], ctx.spec["bench"]
    f = first_line(ctx, p, b)
    h = headline(ctx, p, b)
    same_fields(ctx, "headline vs --first", h, f or {}, ["node", "level", "step", "micro_step", "rank", "module"])
    if "origin" in ctx.spec:
        js = json.loads(ctx.run(["overflow", p, "--format", "json"]))
        o = (js.get("origin") or [{}])[0].get("origins") or [{}]
        if f is not None and (o[0].get("rank") != f["rank"] or o[0].get("step") != f["step"]):
            ctx.diff("overflow origin %r vs --first step %s rank %s" % (o[0], f["step"], f["rank"]))
        # the text answer names the same birth as the json one
        born = re.search(r"born on rank (\d+)(?: micro step \d+)?, position (\d+): (\S+)", ctx.run(["overflow", p]))
        if not born or (int(born.group(1)), int(born.group(2)), born.group(3)) != (o[0].get("rank"), o[0].get("pos"),
                                                                                   o[0].get("name")):
            ctx.diff("overflow text origin %r vs json %r" % (born.group(0) if born else None, o[0]))


def origins_of(js):
    """{rank: [names]} of overflow --format json's origin."""
    res = {}
    for o in js.get("origin") or []:
        for x in o.get("origins") or []:
            res.setdefault("rank_%d" % x["rank"], []).append(x["name"])
    return res


def k_origin(ctx):
    """overflow --format json origin: msProbe overflow_check's anomaly_analyze json (op per rank)."""
    js = json.loads(ctx.run(["overflow", ctx.spec["input"], "--format", "json"]))
    ours, theirs = origins_of(js), ctx.ref()
    if ours != theirs:
        ctx.diff("origin per rank: ours %s, theirs %s" % (ours, theirs))


def k_levels(ctx):
    """overflow --format json: the (rank, node, level) msProbe's graph -oc marks, for one step."""
    js = json.loads(ctx.run(["overflow", ctx.spec["input"], "--format", "json", "--limit", "0"]))
    step = ctx.spec.get("step", 0)
    ours = set()
    for e in js.get("entries") or []:
        if e.get("step") != step or not e.get("level"):
            continue
        lo, hi = (e.get("rank_range") or [e["rank"], e["rank"]])
        # a numeric-jump row stands for its records on every rank of its range
        # (probetop(1), overflow: one row per name); it is expanded when the
        # range is whole (as many ranks as the range spans)
        if e.get("kind") == "numeric_jump" and e.get("ranks") == hi - lo + 1 and e.get("steps") == 1:
            ranks = range(lo, hi + 1)
        else:
            ranks = [e["rank"]]
        for r in ranks:
            ours.add((r, e["name"], e["level"]))
    theirs = {(r, n, lv) for r, n, lv in ctx.ref()}
    for x in sorted(theirs - ours)[:15]:
        ctx.diff("msProbe marks rank %d %s %s; probetop does not" % x)
    for x in sorted(ours - theirs)[:15]:
        ctx.diff("probetop lists rank %d %s %s; msProbe does not mark it" % x)
    if theirs != ours:
        ctx.diff("%d marks only msProbe's, %d only ours (of %d, %d)" %
                 (len(theirs - ours), len(ours - theirs), len(theirs), len(ours)))


def k_nonfinite(ctx):
    """overflow --format json: where the first NaN/Inf is (step, micro step, rank) and which ranks hold one."""
    js = json.loads(ctx.run(["overflow", ctx.spec["input"], "--format", "json", "--limit", "0"]))
    first = js.get("first") or {}
    ours = {"first": [first.get("step"), first.get("micro_step"), first.get("rank")] if first else None,
            # level-less inputs count cells per rank; dumps list records, of
            # which those of kind nonfinite hold a NaN/Inf (the others are
            # the numeric-jump heuristic)
            "ranks": sorted(set(r["rank"] for r in js.get("per_rank") or [] if r.get("nonfinite")) |
                            set(e["rank"] for e in js.get("entries") or [] if e.get("kind") == "nonfinite"))}
    theirs = ctx.ref()
    for k in ("first", "ranks"):
        if ours[k] != theirs[k]:
            ctx.diff("%s: ours %s, theirs %s" % (k, ours[k], theirs[k]))


def k_visdb_overflow(ctx):
    """overflow --format json on msProbe's -oc .vis.db: every node it gave a level, both sides."""
    js = json.loads(ctx.run(["overflow", ctx.spec["input"], "--format", "json", "--limit", "0"]))
    ours = sorted([e["side"], e["step"], e["rank"], e["name"], e["level"]] for e in js.get("entries") or [])
    theirs = sorted(ctx.ref())
    if ours != theirs:
        a = {tuple(x) for x in ours}
        b = {tuple(x) for x in theirs}
        for x in sorted(b - a)[:10]:
            ctx.diff("msProbe's database marks %s; probetop does not list it" % (x,))
        for x in sorted(a - b)[:10]:
            ctx.diff("probetop lists %s; not in msProbe's database" % (x,))
        ctx.diff("%d entries, msProbe's database %d" % (len(ours), len(theirs)))


def k_visdb(ctx):
    """compare P B --vis-db (or compare RUN --vis-db): the database msProbe's graph_visualize wrote, row for row."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import visdb_canon

    def where(p):
        return os.path.join(ctx.src, p[5:]) if p.startswith("@src/") else p
    out = os.path.join(ctx.tmp, "ours.vis.db")
    if os.path.exists(out):
        os.unlink(out)
    runs = [where(ctx.spec["problem"])] + ([where(ctx.spec["bench"])] if ctx.spec.get("bench") else [])
    ctx.run(["compare"] + runs + ["--vis-db", out] + ctx.spec.get("args", []))
    if not os.path.exists(out):
        return ctx.diff("no database written")
    for line in visdb_canon.diff(visdb_canon.load(out), visdb_canon.load(ctx.path(where(ctx.spec["input"])))):
        ctx.diff(line)
    # round trip: probetop's own reader says the same of both databases
    ref = ctx.path(where(ctx.spec["input"]))
    for args in (["info", "--json"], ["overflow", "--format", "json", "--limit", "0"]):
        ok = (0, 1, 3)   # overflow on a database without -oc levels: exit 3, on both
        mine = json.loads(ctx.run([args[0], out] + args[1:], ok) or "{}")
        theirs = json.loads(ctx.run([args[0], ref] + args[1:], ok) or "{}")
        mine.pop("path", None)
        theirs.pop("path", None)
        if mine != theirs:
            ctx.diff("probetop %s on ours: %s; on msProbe's: %s" % (args[0], json.dumps(mine)[:300],
                                                                    json.dumps(theirs)[:300]))
    left = [f for f in os.listdir(ctx.tmp) if ".tmp." in f]
    if left:
        ctx.diff("temporary files left beside the database: %s" % left)


def k_visdb_match(ctx):
    """compare P B --vis-db --match-config: the pairs matched by hand marked modified and linked, the rest msProbe's rows."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sqlite3
    import visdb_canon

    def where(p):
        return os.path.join(ctx.src, p[5:]) if p.startswith("@src/") else ctx.path(p)
    out = os.path.join(ctx.tmp, "ours.vis.db")
    if os.path.exists(out):
        os.unlink(out)
    cfg = os.path.join(ctx.tmp, "match.vis.config")
    with open(cfg, "w", encoding="utf-8") as f:
        json.dump(ctx.spec["match"], f)
    ctx.run(["compare", where(ctx.spec["problem"]), where(ctx.spec["bench"]), "--vis-db", out,
             "--match-config", cfg] + ctx.spec.get("args", []))
    if not os.path.exists(out):
        return ctx.diff("no database written")
    con = sqlite3.connect("file:%s?immutable=1" % out, uri=True)
    got = sorted((src, name, json.loads(link)[-1] if link != "[]" else None)
                 for src, name, link in con.execute("SELECT data_source, node_name, matched_node_link FROM tb_nodes "
                                                    "WHERE modified = 1"))
    con.close()
    want = sorted([("NPU", a, b) for a, b in ctx.spec["match"].items()] +
                  [("Bench", b, a) for a, b in ctx.spec["match"].items()])
    if got != want:
        ctx.diff("rows marked modified (side, node, counterpart): %s, expected %s" % (got, want))
    for line in visdb_canon.diff(visdb_canon.load(out), visdb_canon.load(where(ctx.spec["input"])), limit=10 ** 9):
        parts = line.split(" ", 2)
        rid = parts[1].rstrip(":") if len(parts) > 1 else ""
        if parts[0] == "tb_nodes" and any(rid.startswith(s_ + "_") and rid.endswith("_" + n)
                                          for s_, n, _ in want):
            continue   # the pair matched by hand: its rows are ours to differ
        ctx.diff(line)


def k_anomalies(ctx):
    """overflow --format json: msProbe's monitor alert reports, in its analyser's first-anomaly order."""
    js = json.loads(ctx.run(["overflow", ctx.spec["input"], "--format", "json", "--limit", "0"]))
    got = js.get("anomalies") or []
    theirs = ctx.ref()
    if len(got) != theirs["count"]:
        ctx.diff("%d reports, msProbe's files hold %d" % (len(got), theirs["count"]))
    ours = [[x.get("rank"), x.get("step"), x.get("call_id"), x.get("tag_name")] for x in got[:len(theirs["first"])]]
    for i, (a, b) in enumerate(zip(ours, theirs["first"])):
        if a != b:
            ctx.diff("report %d: ours %s, msProbe's analyser %s" % (i, a, b))
    if len(ours) < len(theirs["first"]):
        ctx.diff("%d reports listed, msProbe's analyser names %d first" % (len(ours), len(theirs["first"])))


def get_path(obj, dotted):
    for k in dotted.split("."):
        if isinstance(obj, list):
            obj = obj[int(k)] if int(k) < len(obj) else None
        elif isinstance(obj, dict):
            obj = obj.get(k)
        else:
            return None
    return obj


def k_json_fields(ctx):
    """A headless json answer (info --json, overflow --format json): fields against the reference."""
    out = ctx.run(ctx.spec["args"], ok=tuple(ctx.spec.get("exit", [0, 1])))
    try:
        js = json.loads(out)
    except ValueError as e:
        return ctx.diff("not json (%s): %s" % (e, out[:300]))
    for k, v in ctx.ref().items():
        got = get_path(js, k)
        if isinstance(v, float) and isinstance(got, (int, float)):
            if abs(got - v) > ctx.spec.get("tolerance", 0) + REL * abs(v):
                ctx.diff("%s: ours %r, theirs %r" % (k, got, v))
        elif got != v:
            ctx.diff("%s: ours %r, theirs %r" % (k, got, v))


def k_trace(ctx):
    """trace --format json per rank: HTA's temporal breakdown and comm/comp overlap."""
    js = json.loads(ctx.run(["trace", ctx.spec["input"], "--format", "json"], ok=(0,)))
    ours = {r["rank"]: r for r in js.get("ranks", [])}
    tol_us, tol_pct = ctx.spec.get("tolerance_us", 1.0), ctx.spec.get("tolerance_pct", 0.006)
    for rank, fig in sorted(ctx.ref().items(), key=lambda x: int(x[0])):
        o = ours.get(int(rank))
        if o is None:
            ctx.diff("rank %s: probetop has no such rank (it has %s)" % (rank, sorted(ours)))
            continue
        for k, v in fig.items():
            tol = tol_pct if k.endswith("_pct") else tol_us
            if v is None or o.get(k) is None:   # HTA's NaN overlap (no communication): null
                if v is not o.get(k, 0):
                    ctx.diff("rank %s %s: ours %s, HTA %s" % (rank, k, o.get(k), v))
            elif k not in o or abs(o[k] - v) > tol:
                ctx.diff("rank %s %s: ours %s, HTA %s (tolerance %s)" % (rank, k, o.get(k), v, tol))


def k_trace_tables(ctx):
    """trace --format json --top 0: HTA's kernel-type table (summed over the ranks),
    its per-kernel table (nothing folded) and its idle breakdown per rank and stream."""
    out = ctx.run(["trace", ctx.spec["input"], "--format", "json", "--top", "0"], ok=(0,))
    try:
        js = json.loads(out)
    except ValueError as e:
        return ctx.diff("not json (%s): %s" % (e, out[:300]))
    ref = ctx.ref()
    tol_us, rel = ctx.spec.get("tolerance_us", 1.0), ctx.spec.get("tolerance_rel", 0.005)

    def close(a, b):
        return a is not None and b is not None and abs(a - b) <= tol_us + rel * abs(b)

    ours = {x["type"]: x["us"] for x in js.get("kernel_types", [])}
    for t in sorted(set(ours) | set(ref["kernel_types"])):
        a, b = ours.get(t, 0.0), ref["kernel_types"].get(t, 0.0)
        if not close(a, b):
            ctx.diff("kernel type %r: ours %s us, HTA %s us" % (t, a, b))
    ours = {(x["rank"], x["name"], x["type"]): x for x in js.get("top_kernels", [])}
    theirs = {(x["rank"], x["name"], x["type"]): x for x in ref["top_kernels"]}
    for k in sorted(set(ours) - set(theirs)):
        ctx.diff("kernel %r: ours only" % (k,))
    for k in sorted(set(theirs) - set(ours)):
        ctx.diff("kernel %r: HTA only" % (k,))
    for k in sorted(set(ours) & set(theirs)):
        o, t = ours[k], theirs[k]
        if o["count"] != t["count"]:
            ctx.diff("kernel %r count: ours %s, HTA %s" % (k, o["count"], t["count"]))
        for f in ("sum_us", "max_us", "min_us", "mean_us"):
            if not close(o[f], t[f]):
                ctx.diff("kernel %r %s: ours %s, HTA %s" % (k, f, o[f], t[f]))
    ours = {(x["rank"], x["stream"]): x for x in js.get("idle", [])}
    # kernels whose launch is not in the trace: HTA takes the time of its table's first
    # row as their launch, probetop none (hta_tables.py, idle_linked)
    theirs = {(x["rank"], x["stream"]): x for x in ref.get("idle_linked", ref["idle"])}
    if set(ours) != set(theirs):
        ctx.diff("idle streams: ours %s, HTA %s" % (sorted(ours), sorted(theirs)))
    for k in sorted(set(ours) & set(theirs)):
        for f in ("host_wait_us", "kernel_wait_us", "other_us"):
            if not close(ours[k][f], theirs[k][f]):
                ctx.diff("idle rank %s stream %s %s: ours %s, HTA %s" % (k[0], k[1], f, ours[k][f], theirs[k][f]))


KINDS = {"data2db": k_data2db, "compare_csv": k_compare_csv, "compare_counts": k_compare_counts,
         "first": k_first, "agree": k_agree,
         "origin": k_origin, "levels": k_levels, "nonfinite": k_nonfinite,
         "visdb_overflow": k_visdb_overflow, "visdb": k_visdb, "visdb_match": k_visdb_match, "anomalies": k_anomalies, "json_fields": k_json_fields, "trace": k_trace,
         "trace_tables": k_trace_tables}


def main():
    if len(sys.argv) != 2:
        die(__doc__)
    ctx = Ctx(sys.argv[1])
    kind = ctx.spec.get("kind")
    if kind not in KINDS:
        die("%s: unknown kind %r" % (sys.argv[1], kind))
    if ctx.spec.get("departure") and "ours" in ctx.spec:
        ctx.spec["reference"] = ctx.spec["ours"]
        ctx.spec.pop("ref", None)
    KINDS[kind](ctx)
    pending = ctx.spec.get("pending")
    if ctx.diffs:
        print("%s differs from %s:" % (os.path.basename(sys.argv[1]), ctx.spec.get("made_by", "the reference")))
        for d in ctx.diffs:
            print("  " + d)
        if pending:
            print("pending: " + pending)
            sys.exit(77)
        sys.exit(1)
    if pending:
        print("pending mark no longer needed: probetop now agrees (%s); remove the mark" % pending)
        sys.exit(1)
    print("ok: " + KINDS[kind].__doc__.strip().splitlines()[0])


if __name__ == "__main__":
    main()
