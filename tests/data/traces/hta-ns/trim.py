# Trims HolisticTraceAnalysis's ns-resolution test trace to the events its temporal
# breakdown reads (tests/data/traces/hta-ns/README.md):  trim.py SRC.json.gz DST.json.gz
import gzip, json, sys
from decimal import Decimal
src, dst = sys.argv[1], sys.argv[2]
d = json.loads(gzip.open(src).read(), parse_float=Decimal)
keep_args = {"stream", "correlation", "External id", "device"}
out = []
for e in d["traceEvents"]:
    cat = e.get("cat")
    name = str(e.get("name", ""))
    if e.get("ph") == "M" and cat is None: out.append(e); continue
    if cat in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "Trace", "gpu_user_annotation") or name.startswith("ProfilerStep#"):
        if isinstance(e.get("args"), dict):
            e["args"] = {k: v for k, v in e["args"].items() if k in keep_args}
        out.append(e)
meta = {k: v for k, v in d.items() if k in ("schemaVersion", "distributedInfo", "displayTimeUnit", "baseTimeNanoseconds")}
def enc(v):
    if isinstance(v, Decimal): return str(v)
    if isinstance(v, dict): return "{" + ", ".join(json.dumps(k) + ": " + enc(x) for k, x in v.items()) + "}"
    if isinstance(v, list): return "[" + ", ".join(enc(x) for x in v) + "]"
    return json.dumps(v)
with gzip.GzipFile(dst, "wb", mtime=0, compresslevel=9) as g:
    parts = ["{"]
    for k, v in meta.items(): parts.append(json.dumps(k) + ": " + enc(v) + ",\n")
    parts.append('"traceEvents": [\n' + ",\n".join(enc(e) for e in out) + "\n]}\n")
    g.write("".join(parts).encode())
print(len(out), "events kept of", len(d["traceEvents"]))
