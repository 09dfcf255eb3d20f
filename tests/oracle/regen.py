#!/usr/bin/env python3
"""regen.py - remake the oracle cases: their inputs (tests/gen_dump.py, HTA's test
traces) and the answers msProbe and HTA give on them (tests/oracle/README.md).

Run through regen.sh (it checks MSPROBE_SRC and HTA_SRC).  Not run by ctest.
  regen.py [CASE...]      every case, or the named ones

Each check's expected file (cases/<case>/expected/<check>.json) is rewritten with
the reference's answer; a "pending" or "departure" mark already in it is kept.
"""
import csv
import glob
import gzip
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
PY = os.environ.get("PT_REF_PYTHON", "/usr/bin/python3")
KEEP = ("pending", "departure", "ours", "note")
SMALL = ["--hidden", "8", "--heads", "2", "--ffn", "16", "--seq", "4", "--vocab", "32", "--quiet"]


class Env:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="pt_oracle_")
        ms = os.environ.get("MSPROBE_SRC")
        hta = os.environ.get("HTA_SRC")
        if not ms or not hta:
            sys.exit("set MSPROBE_SRC and HTA_SRC (regen.sh)")
        # msProbe refuses paths holding characters such as '+': run a copy of its
        # python/ folder from a plain path (only read and run, never changed)
        self.ms = os.path.join(self.work, "msprobe")
        shutil.copytree(os.path.join(ms, "python"), os.path.join(self.ms, "python"))
        self.hta = hta
        self.env = dict(os.environ, PYTHONHASHSEED="0", MSPROBE_SRC=self.ms,
                        PYTHONPATH=os.path.join(self.ms, "python"))
        self.commits = {"msprobe": git_head(ms), "hta": git_head(hta)}
        self.n = 0

    def out(self):
        self.n += 1
        d = os.path.join(self.work, "out%d" % self.n)
        os.makedirs(d)
        return d

    def msprobe(self, args, notorch=False, module=False):
        if notorch:
            cmd = [PY, os.path.join(HERE, "msprobe_notorch.py")] + args
        elif module:
            cmd = [PY] + args
        else:
            cmd = [PY, "-m", "msprobe.msprobe"] + args
        p = subprocess.run(cmd, env=self.env, cwd=self.work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            sys.exit("msprobe %s failed:\n%s" % (" ".join(args), p.stdout.decode()[-3000:]))


def git_head(d):
    try:
        return subprocess.run(["git", "-C", d, "log", "-1", "--format=%H"], stdout=subprocess.PIPE,
                              check=True).stdout.decode().strip()
    except (subprocess.CalledProcessError, OSError):
        return "unknown"


def one(pattern):
    hits = sorted(glob.glob(pattern, recursive=True))
    if len(hits) != 1:
        sys.exit("expected one file for %s, found %s" % (pattern, hits))
    return hits[0]


def write_spec(case, check, spec, made_by, ref_text=None, ref_ext=None):
    """cases/<case>/expected/<check>.json, keeping the marks of the old one."""
    d = os.path.join(CASES, case, "expected")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, check + ".json")
    old = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
    spec = dict(spec, made_by=made_by)
    if ref_text is not None:
        name = check + "." + ref_ext
        with open(os.path.join(d, name), "w", encoding="utf-8", newline="") as f:
            f.write(ref_text)
        spec["ref"] = name
    for k in KEEP:
        if k in old:
            spec[k] = old[k]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")


LOG = []   # the commands that made the current case's inputs, for its README


def rel(path):
    return os.path.relpath(path, SRC)


def gen(out, *args):
    subprocess.run([PY, os.path.join(SRC, "tests", "gen_dump.py"), "--out", out] + SMALL + list(args), check=True)
    LOG.append("python3 tests/gen_dump.py --out %s %s" % (rel(out), " ".join(SMALL + list(args))))
    LOG.append("for d in %s/step*/rank*; do echo '{}' > $d/stack.json; done" % rel(out))
    # graph_visualize wants a stack.json per rank; an empty one keeps the case small
    for d in glob.glob(os.path.join(out, "step*", "rank*")):
        with open(os.path.join(d, "stack.json"), "w") as f:
            f.write("{}\n")


def tool(script, *args):
    """Run one of the scripts beside this one on the case's input, and log it."""
    subprocess.run([PY, os.path.join(HERE, script)] + list(args), check=True)
    LOG.append("python3 tests/oracle/%s %s" % (script, " ".join(rel(a) if os.path.isabs(a) else a for a in args)))


def write_readme(case, doc):
    with open(os.path.join(CASES, case, "README.md"), "w") as f:
        f.write("# %s\n\n%s\n\nThe input was made from the checkout's root by:\n\n```sh\n%s\n```\n\n"
                "`MSPROBE_SRC=... HTA_SRC=... tests/oracle/regen.sh %s` runs these and the reference tools "
                "again and rewrites `expected/` (see ../../README.md).\n"
                % (case, " ".join(doc.split()), "\n".join(LOG), case))


def fresh_input(case):
    del LOG[:]
    d = os.path.join(CASES, case, "input")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def canon(db):
    return subprocess.run([PY, os.path.join(SRC, "tests", "trenddb_canon.py"), db], stdout=subprocess.PIPE,
                          check=True).stdout.decode("utf-8")


# ---------------------------------------------------------------- reference answers

def ref_data2db(e, case, check, data, args):
    out = e.out()
    e.msprobe(["data2db", "--data", os.path.join(CASES, case, data), "--db", out] + args)
    db = one(out + "/**/*.trend.db")
    write_spec(case, check, {"kind": "data2db", "input": data, "args": args},
               "msprobe data2db --data %s --db OUT %s | tests/trenddb_canon.py" % (data, " ".join(args)),
               canon(db), "canon.txt")
    return db


def ref_compare_csv(e, case, check, problem, bench):
    out = e.out()
    e.msprobe(["compare", "-tp", os.path.join(CASES, case, problem, "dump.json"),
               "-gp", os.path.join(CASES, case, bench, "dump.json"), "-o", out], notorch=True)
    with open(one(out + "/compare_result_*.csv"), encoding="utf-8", newline="") as f:
        text = f.read()
    write_spec(case, check, {"kind": "compare_csv", "problem": problem, "bench": bench},
               "msprobe_notorch.py compare -tp %s/dump.json -gp %s/dump.json -o OUT" % (problem, bench),
               text, "csv")
    write_spec(case, check + "_counts", {"kind": "compare_counts", "problem": problem, "bench": bench,
                                         "ref": check + ".csv"},
               "msprobe_notorch.py compare (as %s): its rows and their Result words" % check)


def vis_first(db):
    """{(step, rank): first diverging node} of a compare .vis.db: error before warning,
    then (micro step, node_order), API collections (node_type 9) skipped
    (probetop-rules(7), FIRST DIVERGENCE)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT step, rank, micro_step_id, node_order, node_name, precision_index FROM tb_nodes "
                       "WHERE graph_id LIKE 'NPU%' AND node_type != 9 AND precision_index IS NOT NULL "
                       "AND precision_index >= 0.3").fetchall()
    res = {}
    for step, rank, micro, order, name, pi in rows:
        level = "error" if pi >= 0.6 else "warning"
        key = (0 if level == "error" else 1, micro, order)
        cur = res.get((step, rank))
        if cur is None or key < cur[0]:
            res[(step, rank)] = (key, {"node": name, "level": level, "step": step, "rank": rank, "micro_step": micro})
    return {k: v[1] for k, v in res.items()}


def ref_graph(e, case, problem, bench, oc=False):
    out = e.out()
    e.msprobe(["graph_visualize", "-tp", os.path.join(CASES, case, problem),
               "-gp", os.path.join(CASES, case, bench), "-o", out] + (["-oc"] if oc else []))
    return one(out + "/*.vis.db")


def ref_visdb(e, case, check, problem, bench, oc=False, db=None):
    """compare --vis-db against msProbe's graph_visualize database of the same
    inputs (a build when bench is None), kept gzipped in msprobe/<check>.vis.db.gz."""
    if db is None:
        out = e.out()
        e.msprobe(["graph_visualize", "-tp", os.path.join(CASES, case, problem)]
                  + (["-gp", os.path.join(CASES, case, bench)] if bench else []) + ["-o", out]
                  + (["-oc"] if oc else []))
        db = one(out + "/*.vis.db")
        ms = os.path.join(CASES, case, "msprobe")
        os.makedirs(ms, exist_ok=True)
        with open(db, "rb") as f, gzip.GzipFile(os.path.join(ms, check + ".vis.db.gz"), "wb", 9, mtime=0) as g:
            g.write(f.read())
        db = "msprobe/%s.vis.db.gz" % check
    spec = {"kind": "visdb", "problem": problem, "input": db, "args": ["--overflow"] if oc else []}
    if bench:
        spec["bench"] = bench
    write_spec(case, check, spec, "msprobe graph_visualize -tp %s%s -o OUT%s; the database, row for row "
               "(tests/oracle/visdb_canon.py)" % (problem, " -gp " + bench if bench else "", " -oc" if oc else ""))


def ref_first(e, case, check, problem, bench):
    """One check per (step, rank) of a graph compare of two dump roots:
    <check>_step<S>_rank<R>, run by probetop on that rank folder pair."""
    db = ref_graph(e, case, problem, bench)
    for (step, rank), first in sorted(vis_first(db).items()):
        write_spec(case, "%s_step%d_rank%d" % (check, step, rank),
                   {"kind": "first", "problem": "%s/step%d/rank%d" % (problem, step, rank),
                    "bench": "%s/step%d/rank%d" % (bench, step, rank), "reference": first},
                   "msprobe graph_visualize -tp %s -gp %s -o OUT; in graph NPU_%d_%d the earliest node at "
                   "error level (else warning) by micro_step_id, node_order, API collections skipped"
                   % (problem, bench, step, rank))


def ref_levels(e, case, check, problem, bench, step):
    db = ref_graph(e, case, problem, bench, oc=True)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT rank, node_name, overflow_level FROM tb_nodes WHERE graph_id LIKE 'NPU%' "
                       "AND overflow_level IS NOT NULL AND overflow_level != '' ORDER BY rank, node_order").fetchall()
    write_spec(case, check, {"kind": "levels", "input": problem, "step": step,
                             "reference": [list(r) for r in rows]},
               "msprobe graph_visualize -tp %s -gp %s -o OUT -oc; (rank, node_name, overflow_level) of the "
               "NPU graph's nodes with a level" % (problem, bench))
    return db


def ref_origin(e, case, check, step_dir):
    out = e.out()
    e.msprobe(["overflow_check", "-i", os.path.join(CASES, case, step_dir), "-o", out])
    with open(one(out + "/anomaly_analyze_*.json"), encoding="utf-8") as f:
        js = json.load(f)
    ref = {r: [x["op_name"] for x in v] for r, v in js.items()}
    write_spec(case, check, {"kind": "origin", "input": step_dir, "reference": ref},
               "msprobe overflow_check -i %s -o OUT; op_name of each rank's entries in "
               "anomaly_analyze_<ts>.json" % step_dir)


def ref_trenddb_info(case, check, rel, db, how):
    """info --json on msProbe's .trend.db: the axes and sizes the database declares."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    max_rank, min_step, max_step = con.execute("SELECT max_rank, min_step, max_step FROM global_stats").fetchone()
    ref = {"format": "trenddb", "steps": list(range(min_step, max_step + 1)), "ranks": list(range(max_rank + 1)),
           "targets": con.execute("SELECT count(*) FROM monitoring_targets").fetchone()[0],
           "metrics": [m for (m,) in con.execute("SELECT metric_name FROM monitoring_metrics ORDER BY metric_id")]}
    for m, n in con.execute("SELECT metric_name, count(DISTINCT target_id) FROM trend_data "
                            "JOIN monitoring_metrics USING (metric_id) GROUP BY 1"):
        ref["metric_targets." + m] = n
    write_spec(case, check, {"kind": "json_fields", "args": ["info", rel, "--json"], "exit": [0], "reference": ref},
               how + "; global_stats (steps min_step..max_step, ranks 0..max_rank), monitoring_targets rows, "
               "monitoring_metrics by id, targets with rows per metric")


def ref_msprobe_dbs(e, case, trend, vis):
    """What msProbe's own .trend.db and -oc .vis.db hold, for probetop's overflow and info on them."""
    con = sqlite3.connect("file:%s?mode=ro" % trend, uri=True)
    # NaN is stored as NULL; a tensor's Max is never missing otherwise (an int64
    # tensor has no Mean or Norm, but a Max)
    rows = con.execute("SELECT step, rank FROM trend_data WHERE max IS NULL ORDER BY step, rank").fetchall()
    write_spec(case, "msprobe_trenddb_nonfinite",
               {"kind": "nonfinite", "input": "msprobe/dump_data.trend.db",
                "reference": {"first": [rows[0][0], 0, rows[0][1]] if rows else None,
                              "ranks": sorted({r for _, r in rows})}},
               "msprobe data2db --data input/npu --db OUT; trend_data rows whose max is NULL (NaN): "
               "the earliest (step, rank) and the ranks holding one")
    ref_trenddb_info(case, "msprobe_trenddb_info", "msprobe/dump_data.trend.db", trend,
                     "msprobe data2db --data input/npu --db OUT")
    con = sqlite3.connect("file:%s?mode=ro" % vis, uri=True)
    side = {"NPU": "problem", "Bench": "benchmark"}
    rows = con.execute("SELECT graph_id, step, rank, node_name, overflow_level FROM tb_nodes "
                       "WHERE overflow_level IS NOT NULL AND overflow_level != ''").fetchall()
    write_spec(case, "msprobe_visdb_overflow",
               {"kind": "visdb_overflow", "input": "msprobe/compare_oc.vis.db.gz",
                "reference": [[side[g.split("_")[0]], s, r, n, lv] for g, s, r, n, lv in rows]},
               "msprobe graph_visualize -tp input/npu/step0 -gp input/bench/step0 -o OUT -oc; "
               "(side, step, rank, node_name, overflow_level) of every node with a level")
    levels = {}
    for _, _, _, _, lv in rows:
        levels["overflow." + lv] = levels.get("overflow." + lv, 0) + 1
    n = dict(con.execute("SELECT substr(graph_id, 1, instr(graph_id, '_') - 1), count(*) FROM tb_nodes "
                         "GROUP BY 1").fetchall())
    ref = {"format": "visdb", "graph_type": "compare",
           # probetop(1), info: "graphs" counts one per step and rank (msProbe
           # stores one graph_id per side of each)
           "graphs": con.execute("SELECT count(*) FROM (SELECT DISTINCT step, rank FROM tb_nodes)").fetchone()[0],
           "steps": [r[0] for r in con.execute("SELECT DISTINCT step FROM tb_nodes ORDER BY 1")],
           "ranks": [r[0] for r in con.execute("SELECT DISTINCT rank FROM tb_nodes ORDER BY 1")],
           "nodes.problem": n.get("NPU", 0), "nodes.benchmark": n.get("Bench", 0)}
    ref.update(levels)
    write_spec(case, "msprobe_visdb_info",
               {"kind": "json_fields", "args": ["info", "msprobe/compare_oc.vis.db.gz", "--json"], "exit": [0],
                "reference": ref},
               "msprobe graph_visualize ... -oc (as msprobe_visdb_overflow); its tb_nodes: graphs, steps, ranks, "
               "nodes per side, nodes per overflow level; graphs = distinct (step, rank), as probetop(1) info counts them")


def hta_figures(e, trace_dir):
    code = r"""
import json, sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
tb = a.get_temporal_breakdown(visualize=False)
ov = a.get_comm_comp_overlap(visualize=False)
res = {}
for _, r in tb.iterrows():
    res[str(int(r["rank"]))] = {"idle_us": float(r["idle_time(us)"]), "compute_us": float(r["compute_time(us)"]),
        "non_compute_us": float(r["non_compute_time(us)"]), "kernel_us": float(r["kernel_time(us)"]),
        "idle_pct": float(r["idle_time_pctg"]), "compute_pct": float(r["compute_time_pctg"]),
        "non_compute_pct": float(r["non_compute_time_pctg"])}
for _, r in ov.iterrows():
    v = float(r["comp_comm_overlap_pctg"])
    res[str(int(r["rank"]))]["overlap_pct"] = None if v != v else v   # NaN: no communication
print(json.dumps(res, sort_keys=True))
"""
    env = dict(os.environ, PYTHONPATH=e.hta)
    p = subprocess.run([PY, "-c", code, trace_dir], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("HTA failed on %s:\n%s" % (trace_dir, p.stderr.decode()[-3000:]))
    return json.loads(p.stdout.decode().strip().splitlines()[-1])


def ref_trace(e, case, check, trace_dir):
    ref = hta_figures(e, os.path.join(CASES, case, trace_dir))
    write_spec(case, check, {"kind": "trace", "input": trace_dir, "tolerance_us": 1.0, "tolerance_pct": 0.006,
                             "reference": ref},
               "HTA TraceAnalysis(trace_dir=%s): get_temporal_breakdown, get_comm_comp_overlap" % trace_dir)


def ref_trace_tables(e, case, check, trace_dir):
    """HTA's kernel-type, per-kernel and idle tables (hta_tables.py) on trace_dir."""
    env = dict(os.environ, PYTHONPATH=e.hta)
    p = subprocess.run([PY, os.path.join(HERE, "hta_tables.py"), os.path.join(CASES, case, trace_dir)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("HTA failed on %s:\n%s" % (trace_dir, p.stderr.decode()[-3000:]))
    ref = json.loads(p.stdout.decode().strip().splitlines()[-1])
    write_spec(case, check, {"kind": "trace_tables", "input": trace_dir, "tolerance_us": 1.0, "tolerance_rel": 0.005,
                             "reference": ref},
               "hta_tables.py %s (HTA get_gpu_kernel_breakdown(include_memory_kernels=True, nothing folded), "
               "get_idle_time_breakdown(all ranks, consecutive_kernel_delay=30))" % trace_dir)


# ---------------------------------------------------------------- the cases

def case_pt_mix(e):
    """PyTorch statistics dump, level mix, 2 steps, 1 rank; the problem run's MLP
    scaled by 1.5 (gen_dump --drift)."""
    d = fresh_input("pt_mix")
    gen(d + "/bench", "--layers", "1", "--steps", "2", "--ranks", "1", "--level", "mix")
    gen(d + "/npu", "--layers", "1", "--steps", "2", "--ranks", "1", "--level", "mix", "--drift", "1.5:layers.0.mlp")
    ref_data2db(e, "pt_mix", "data2db", "input/npu", [])
    ref_data2db(e, "pt_mix", "data2db_no_micro", "input/npu", ["--micro_step", "false"])
    for s in (0, 1):
        p, b = "input/npu/step%d/rank0" % s, "input/bench/step%d/rank0" % s
        ref_compare_csv(e, "pt_mix", "compare_csv_step%d" % s, p, b)
    ref_first(e, "pt_mix", "first", "input/npu", "input/bench")
    ref_visdb(e, "pt_mix", "visdb", "input/npu", "input/bench")
    ref_visdb(e, "pt_mix", "visdb_build", "input/npu", None)
    write_spec("pt_mix", "agree", {"kind": "agree", "problem": "input/npu", "bench": "input/bench"},
               "probetop itself: the compare headline and compare --first name the same divergence")


def case_pt_l1(e):
    """PyTorch statistics dump, level L1 (APIs only, construct.json {}), 2 steps."""
    d = fresh_input("pt_l1")
    gen(d + "/bench", "--layers", "1", "--steps", "2", "--ranks", "1", "--level", "L1")
    gen(d + "/npu", "--layers", "1", "--steps", "2", "--ranks", "1", "--level", "L1", "--drift", "1.5:layers.0.mlp")
    ref_data2db(e, "pt_l1", "data2db", "input/npu", [])
    ref_data2db(e, "pt_l1", "data2db_no_micro", "input/npu", ["--micro_step", "false"])
    ref_compare_csv(e, "pt_l1", "compare_csv_step0", "input/npu/step0/rank0", "input/bench/step0/rank0")
    # graph_visualize refuses L1 dumps: the first divergence of a dump without
    # structure is msProbe compare's first row at error level (else warning) in
    # dump order, named by its entry (probetop(1), compare --first)
    with open(os.path.join(CASES, "pt_l1", "expected", "compare_csv_step0.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for level in ("error", "warning"):
        hit = [x["NPU Name"] for x in rows if x["Result"] == level]
        if hit:
            node = hit[0].rsplit(".", 2)[0]   # drop .input.N / .output.N
            break
    write_spec("pt_l1", "first_step0_rank0",
               {"kind": "first", "problem": "input/npu/step0/rank0", "bench": "input/bench/step0/rank0",
                "reference": {"node": node, "level": level, "step": 0, "rank": 0, "micro_step": 0}},
               "msprobe_notorch.py compare (as compare_csv_step0): the entry of the first row whose Result is "
               "error, else warning (graph_visualize refuses L1 dumps)")


def case_pt_micro(e):
    """PyTorch statistics dump, level mix, 2 micro steps (gradient accumulation), 1 step;
    Functional.linear backward outputs end with a null (no bias), as PyTorch's do."""
    d = fresh_input("pt_micro")
    common = ["--layers", "1", "--steps", "1", "--ranks", "1", "--level", "mix", "--micro-batches", "2"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *(common + ["--drift", "1.5:layers.0.mlp"]))
    for side in ("bench", "npu"):   # null bias gradients in the backward outputs
        tool("md5ify.py", "--null-only", os.path.join(d, side))
    ref_data2db(e, "pt_micro", "data2db", "input/npu", [])
    ref_data2db(e, "pt_micro", "data2db_no_micro", "input/npu", ["--micro_step", "false"])
    ref_compare_csv(e, "pt_micro", "compare_csv", "input/npu/step0/rank0", "input/bench/step0/rank0")
    ref_first(e, "pt_micro", "first", "input/npu", "input/bench")
    ref_visdb(e, "pt_micro", "visdb", "input/npu", "input/bench")


def case_pt_nan_pp(e):
    """PyTorch statistics dump, 2 pipeline stages (ranks 0, 1), a NaN born in rank 0's
    MLP at step 0 and carried to rank 1 by send/recv; the benchmark is clean."""
    d = fresh_input("pt_nan_pp")
    common = ["--layers", "2", "--steps", "1", "--ranks", "2", "--pp", "2", "--level", "mix"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *(common + ["--nan", "0:0:layers.0.mlp"]))
    ref_origin(e, "pt_nan_pp", "origin", "input/npu/step0")
    vis = ref_levels(e, "pt_nan_pp", "levels", "input/npu/step0", "input/bench/step0", 0)
    db = ref_data2db(e, "pt_nan_pp", "data2db", "input/npu", [])
    # msProbe's own outputs, kept as inputs of the checks on what probetop says of them
    ms = os.path.join(CASES, "pt_nan_pp", "msprobe")
    shutil.rmtree(ms, ignore_errors=True)
    os.makedirs(ms)
    shutil.copy(db, os.path.join(ms, "dump_data.trend.db"))
    with open(vis, "rb") as f, gzip.GzipFile(os.path.join(ms, "compare_oc.vis.db.gz"), "wb", 9, mtime=0) as g:
        g.write(f.read())
    ref_msprobe_dbs(e, "pt_nan_pp", db, vis)
    ref_visdb(e, "pt_nan_pp", "visdb_oc", "input/npu/step0", "input/bench/step0", oc=True,
              db="msprobe/compare_oc.vis.db.gz")
    ref_visdb(e, "pt_nan_pp", "visdb", "input/npu/step0", "input/bench/step0")
    ref_first(e, "pt_nan_pp", "first", "input/npu", "input/bench")
    for rank in (0, 1):   # NaN rows: msProbe's Nan / inf texts and error words
        ref_compare_csv(e, "pt_nan_pp", "compare_csv_rank%d" % rank, "input/npu/step0/rank%d" % rank,
                        "input/bench/step0/rank%d" % rank)
    write_spec("pt_nan_pp", "agree", {"kind": "agree", "problem": "input/npu", "bench": "input/bench",
                                      "origin": True},
               "probetop itself: compare headline, compare --first and overflow's origin name the same place")


def case_md5(e):
    """PyTorch md5 dump pair (summary_mode md5: "md5" on every tensor), level mix,
    1 step; Functional.linear backward outputs end with a null."""
    d = fresh_input("md5")
    common = ["--layers", "1", "--steps", "1", "--ranks", "1", "--level", "mix"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *(common + ["--drift", "1.5:layers.0.mlp"]))
    for side in ("bench", "npu"):
        tool("md5ify.py", os.path.join(d, side))
    ref_compare_csv(e, "md5", "compare_csv", "input/npu/step0/rank0", "input/bench/step0/rank0")
    ref_first(e, "md5", "first", "input/npu", "input/bench")
    ref_visdb(e, "md5", "visdb", "input/npu", "input/bench")
    write_spec("md5", "agree", {"kind": "agree", "problem": "input/npu", "bench": "input/bench"},
               "probetop itself: the compare headline and compare --first name the same divergence")


def case_pt_tp(e):
    """PyTorch statistics dump, tensor parallel 2 (ranks 0, 1: all_reduce with a group
    forward, without one backward), a NaN born in rank 1's MLP; the benchmark is clean.
    For the .vis.db's communication links."""
    d = fresh_input("pt_tp")
    common = ["--layers", "1", "--steps", "1", "--ranks", "2", "--tp", "2", "--level", "mix"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *(common + ["--nan", "0:1:layers.0.mlp"]))
    ref_visdb(e, "pt_tp", "visdb", "input/npu", "input/bench")
    ref_visdb(e, "pt_tp", "visdb_oc", "input/npu", "input/bench", oc=True)


def monitor_nan_cells(tree):
    """(step, micro_step, rank) of the monitor CSV rows holding a NaN or Inf in a
    statistic, leaving out the placeholder rows (every column nan, shape and dtype
    included) the monitor writes for outputs that are not tensors."""
    cells = set()
    for path in glob.glob(os.path.join(tree, "*-rank*-*", "*.csv")):
        rank = int(os.path.basename(os.path.dirname(path)).split("-rank")[1].split("-")[0])
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("shape") == "nan" and row.get("dtype") == "nan":
                    continue
                stats = [row[k] for k in ("norm", "min", "max", "mean") if k in row]
                if any(v in ("nan", "inf", "-inf") for v in stats):
                    cells.add((int(row["step"]), int(row.get("micro_step") or 0), rank))
    return cells


def case_monitor(e):
    """msProbe monitor v1 CSV tree, 2 ranks, 2 steps of 2 micro batches; a NaN born in
    rank 1's MLP at step 1; placeholder all-nan rows for the non-tensor outputs."""
    d = fresh_input("monitor")
    common = ["--monitor", "--layers", "1", "--steps", "2", "--ranks", "2", "--micro-batches", "2"]
    gen(d + "/tree", *(common + ["--nan", "1:1:layers.0.mlp"]))
    # msProbe's alert reports for the NaN rows, written by msProbe's own writer
    p = subprocess.run([PY, os.path.join(HERE, "anomalies.py"), os.path.join(d, "tree")], env=e.env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        sys.exit("anomalies.py failed:\n" + p.stdout.decode()[-2000:])
    LOG.append("PYTHONPATH=$MSPROBE_SRC/python python3 tests/oracle/anomalies.py %s" % rel(os.path.join(d, "tree")))
    out = e.out()
    e.msprobe(["-m", "msprobe.core.monitor.anomaly_processor", "-d", os.path.join(d, "tree", "anomaly_detected"),
               "-o", out, "-k", "8"], module=True)
    with open(os.path.join(out, "anomaly_analyse.json"), encoding="utf-8") as f:
        first = json.load(f)
    total = sum(len(json.load(open(p, encoding="utf-8")))
                for p in glob.glob(os.path.join(d, "tree", "anomaly_detected", "rank*", "anomaly.json")))
    write_spec("monitor", "anomalies", {"kind": "anomalies", "input": "input/tree",
                                        "reference": {"count": total,
                                                      "first": [[x["rank"], x["step"], x["call_id"], x["tag_name"]]
                                                                for x in first.values()]}},
               "python3 -m msprobe.core.monitor.anomaly_processor -d input/tree/anomaly_detected -o OUT -k 8: "
               "(rank, step, call_id, tag_name) of anomaly_analyse.json's entries in order; count: the entries "
               "of every rank's anomaly.json")
    db = ref_data2db(e, "monitor", "data2db", "input/tree", [])
    ms = os.path.join(CASES, "monitor", "msprobe")
    shutil.rmtree(ms, ignore_errors=True)
    os.makedirs(ms)
    shutil.copy(db, os.path.join(ms, "monitor_data.trend.db"))
    ref_trenddb_info("monitor", "msprobe_trenddb_info", "msprobe/monitor_data.trend.db", db,
                     "msprobe data2db --data input/tree --db OUT")
    ref_data2db(e, "monitor", "data2db_no_micro", "input/tree", ["--micro_step", "false"])
    cells = sorted(monitor_nan_cells(os.path.join(d, "tree")))
    write_spec("monitor", "overflow", {"kind": "nonfinite", "input": "input/tree",
                                       "reference": {"first": list(cells[0]) if cells else None,
                                                     "ranks": sorted({c[2] for c in cells})}},
               "gen_dump.py --nan 1:1:layers.0.mlp (the planted NaN), read back from the CSV rows with a nan/inf "
               "statistic that are not placeholders (shape and dtype nan); msProbe's data2db stores both as NULL")


def case_pt_nan_pp_stage1(e):
    """As pt_nan_pp, but the NaN is born on the last stage (rank 1) at step 0: rank 0
    first sees it in its backward recv, earlier in rank order than the birth."""
    case = "pt_nan_pp_stage1"
    d = fresh_input(case)
    common = ["--layers", "2", "--steps", "1", "--ranks", "2", "--pp", "2", "--level", "mix"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *(common + ["--nan", "0:1:layers.0.mlp"]))
    ref_origin(e, case, "origin", "input/npu/step0")
    ref_levels(e, case, "levels", "input/npu/step0", "input/bench/step0", 0)
    ref_first(e, case, "first", "input/npu", "input/bench")
    for rank in (0, 1):
        ref_compare_csv(e, case, "compare_csv_rank%d" % rank, "input/npu/step0/rank%d" % rank,
                        "input/bench/step0/rank%d" % rank)
    write_spec(case, "agree", {"kind": "agree", "problem": "input/npu", "bench": "input/bench", "origin": True},
               "probetop itself: compare headline, compare --first and overflow's origin name the same place")


def case_pt_param_nan(e):
    """PyTorch statistics dump, level mix, 1 step, 1 rank: one module's forward
    parameters NaN (nan_param.py), its inputs and outputs finite."""
    case = "pt_param_nan"
    d = fresh_input(case)
    entry = "Module.module.module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.forward.0"
    common = ["--layers", "1", "--steps", "1", "--ranks", "1", "--level", "mix"]
    gen(d + "/bench", *common)
    gen(d + "/npu", *common)
    tool("nan_param.py", os.path.join(d, "npu", "step0", "rank0", "dump.json"), entry)
    ref_compare_csv(e, case, "compare_csv", "input/npu/step0/rank0", "input/bench/step0/rank0")
    ref_first(e, case, "first", "input/npu", "input/bench")
    # the NaN as msProbe's compare table shows it: the rows whose NPU max is nan
    with open(os.path.join(CASES, case, "expected", "compare_csv.csv"), newline="") as f:
        nan_rows = [x["NPU Name"] for x in csv.DictReader(f) if x["NPU max"].lower() == "nan"]
    write_spec(case, "overflow", {"kind": "nonfinite", "input": "input/npu",
                                  "reference": {"first": [0, 0, 0] if nan_rows else None,
                                                "ranks": [0] if nan_rows else []}},
               "msprobe_notorch.py compare (as compare_csv): its rows whose NPU max is nan (%s); msProbe's "
               "overflow_check and graph_visualize -oc look at inputs and outputs only and flag nothing"
               % ", ".join(nan_rows))


def cut_trace(src, step_name, dst):
    """A Kineto trace cut to the events of one ProfilerStep (events without ts,
    such as the process names, kept), so the stored case stays small."""
    with gzip.open(src) as f:
        js = json.load(f)
    step = [x for x in js["traceEvents"] if x.get("name") == step_name][0]
    t0, t1 = float(step["ts"]), float(step["ts"]) + float(step["dur"])
    js["traceEvents"] = [x for x in js["traceEvents"] if "ts" not in x or t0 <= float(x["ts"]) <= t1]
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with gzip.GzipFile(dst, "wb", 9, mtime=0) as g:
        g.write(json.dumps(js).encode())
    LOG.append("# $HTA_SRC/%s cut to the events of %s (ts within it, or no ts) -> %s   (regen.py, cut_trace)"
               % (src[src.index("tests/data"):], step_name, rel(dst)))


def case_traces(e):
    """HTA's test traces: sampled_2rank (µs timestamps, 2 ranks, NCCL kernels),
    nccl_data cut to ProfilerStep#5 (ns timestamps, NCCL) and ns_resolution_trace
    cut to ProfilerStep#102 (ns timestamps, no communication). Origin:
    facebookresearch/HolisticTraceAnalysis tests/data, MIT licence (input/LICENSE)."""
    d = fresh_input("traces")
    hta_data = os.path.join(e.hta, "tests", "data")
    shutil.copy(os.path.join(e.hta, "LICENSE"), os.path.join(d, "LICENSE"))
    os.makedirs(os.path.join(d, "sampled_2rank"))
    for r in (0, 1):
        shutil.copy(os.path.join(hta_data, "trace_filter", "sampled_rank-%d.json.gz" % r),
                    os.path.join(d, "sampled_2rank", "rank-%d.json.gz" % r))
        LOG.append("cp $HTA_SRC/tests/data/trace_filter/sampled_rank-%d.json.gz %s/sampled_2rank/rank-%d.json.gz"
                   % (r, rel(d), r))
    ref_trace(e, "traces", "sampled_2rank", "input/sampled_2rank")
    cut_trace(os.path.join(hta_data, "nccl_parser_config", "nccl_data.json.gz"), "ProfilerStep#5",
              os.path.join(d, "nccl_step5", "rank-0.json.gz"))
    ref_trace(e, "traces", "nccl_step5", "input/nccl_step5")
    cut_trace(one(os.path.join(hta_data, "ns_resolution_trace", "*.json.gz")), "ProfilerStep#102",
              os.path.join(d, "ns_step102", "rank-0.json.gz"))
    ref_trace(e, "traces", "ns_step102", "input/ns_step102")
    case_trace_tables(e)


def case_trace_tables(e):
    """HTA's other first tables on the traces case's inputs and on the fixtures
    of tests/data/traces (HTA's test traces: hta/ and the nanosecond hta-ns/)."""
    for name in ("sampled_2rank", "nccl_step5", "ns_step102"):
        ref_trace_tables(e, "traces", "tables_" + name, "input/" + name)
    for name in ("hta/nccl_2rank", "hta/rank3_of_8", "hta-ns"):
        ref_trace_tables(e, "traces", "tables_" + name.replace("hta/", "").replace("-", "_"),
                         "input/../../../../data/traces/" + name)


CASE_FUNCS = {"pt_mix": case_pt_mix, "pt_l1": case_pt_l1, "pt_micro": case_pt_micro,
              "pt_nan_pp": case_pt_nan_pp,
              "pt_nan_pp_stage1": case_pt_nan_pp_stage1, "pt_param_nan": case_pt_param_nan, "md5": case_md5, "monitor": case_monitor,
              "pt_tp": case_pt_tp,
              "traces": case_traces}


def main():
    names = sys.argv[1:] or list(CASE_FUNCS)
    for n in names:
        if n not in CASE_FUNCS:
            sys.exit("unknown case %s (cases: %s)" % (n, " ".join(CASE_FUNCS)))
    e = Env()
    try:
        for n in names:
            print("== " + n, flush=True)
            CASE_FUNCS[n](e)
            write_readme(n, CASE_FUNCS[n].__doc__)
        with open(os.path.join(HERE, "commits.txt"), "w") as f:
            f.write("msprobe %s\nhta %s\n" % (e.commits["msprobe"], e.commits["hta"]))
    finally:
        shutil.rmtree(e.work, ignore_errors=True)


if __name__ == "__main__":
    main()
