"""HTA's first tables on a folder of traces, as JSON on the last line of stdout
(tests/oracle/README.md; run by regen.py with HTA on PYTHONPATH, never by ctest):

  kernel_types  get_gpu_kernel_breakdown(include_memory_kernels=True): its first
                table, summed over the ranks: {type: us}
  top_kernels   its second table with nothing folded into "others"
                (num_kernels larger than any rank's kernel count): per rank, name
                and type: sum, max, min, mean (us), and count (the rows of HTA's
                own parsed trace behind each row, HTA's table has no count)
  idle          get_idle_time_breakdown(ranks=all, default consecutive_kernel_delay):
                per rank and stream, host_wait / kernel_wait / other (us)
  idle_linked   only when some kernel's launch is not in the trace: HTA joins such a
                kernel to the first row of its table (index_correlation 0) and takes
                that row's time as its launch; this is HTA's own per-stream analysis
                (BreakdownAnalysis._analyze_idle_time_for_stream) on its own table
                with those kernels given no launch, as probetop reads them
                (probetop-rules(7), PROFILER TRACES: Idle time); unlinked_kernels
                counts them
"""
import json
import sys

from hta.trace_analysis import TraceAnalysis
from hta.utils.utils import get_kernel_type

a = TraceAnalysis(trace_dir=sys.argv[1])
ranks = sorted(a.t.traces.keys())
types, kernels = a.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True, num_kernels=1 << 40)
sym = a.t.symbol_table.get_sym_table()
counts = {}
for rank, df in a.t.traces.items():
    k = df[df["stream"].ne(-1)]
    for name_id, n in k.groupby("name").size().items():
        name = sym[name_id]
        counts[(int(rank), name, get_kernel_type(name))] = int(n)
res = {"kernel_types": {r["kernel_type"]: float(r["sum"]) for _, r in types.iterrows()}, "top_kernels": [], "idle": []}
for _, r in kernels.iterrows():
    key = (int(r["rank"]), r["name"], r["kernel_type"])
    res["top_kernels"].append({"rank": key[0], "name": key[1], "type": key[2], "count": counts.get(key),
                               "sum_us": float(r["sum (us)"]), "max_us": float(r["max (us)"]),
                               "min_us": float(r["min (us)"]), "mean_us": float(r["mean (us)"])})
idle, _ = a.get_idle_time_breakdown(ranks=ranks, visualize=False)
cells = {}
for _, r in idle.iterrows():
    c = cells.setdefault((int(r["rank"]), int(r["stream"])), {"host_wait_us": 0.0, "kernel_wait_us": 0.0, "other_us": 0.0})
    c[r["idle_category"] + "_us"] = float(r["idle_time"])
for (rank, stream), c in sorted(cells.items()):
    res["idle"].append(dict({"rank": rank, "stream": stream}, **c))

# the kernels HTA joined to a row that is not their launch (index_correlation 0 for
# a kernel whose correlation id no CPU event has)
from hta.analyzers.breakdown_analysis import BreakdownAnalysis

ids = a.t.symbol_table.get_sym_id_map()
kcats = [ids.get(c, -1000) for c in ["kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"]]
linked, unlinked = [], 0
for rank in ranks:
    df = a.t.get_trace(rank)
    k = df[df["stream"].ne(-1) & df["cat"].isin(kcats)].copy().set_index("index_correlation")
    k = k.join(df[["ts", "index", "correlation"]], on="index_correlation", rsuffix="_runtime")
    bad = k["correlation_runtime"].ne(k["correlation"])
    unlinked += int(bad.sum())
    k.loc[bad, "ts_runtime"] = float("nan")
    for stream in sorted(k.stream.unique()):
        r, _ = BreakdownAnalysis._analyze_idle_time_for_stream(stream, k, 30)
        c = {"host_wait_us": 0.0, "kernel_wait_us": 0.0, "other_us": 0.0}
        for cat, row in r.iterrows():
            c[{0: "host_wait_us", 1: "kernel_wait_us", 2: "other_us"}[cat]] = float(row["idle_time"])
        linked.append(dict({"rank": int(rank), "stream": int(stream)}, **c))
if unlinked:
    res["unlinked_kernels"] = unlinked
    res["idle_linked"] = linked
print(json.dumps(res, sort_keys=True))
