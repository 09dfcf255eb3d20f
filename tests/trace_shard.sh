#!/bin/sh
# probetop trace --shard / --merge (probetop(1), TRACE): generated traces
# (tests/gen_trace.py: pipeline, tensor groups in pg_config, recompute,
# micro-batches) summarised in shards and merged give the JSON of the
# unsharded run (`trace --format json --per-step`): every table, the same
# numbers (to the printed microsecond), only the paths differ; so does the
# folder of shards read directly, and the one file --merge -o writes.
#   trace_shard.sh BIN TMP         shards 1/3, 2/3, 3/3 run one after another
#   trace_shard.sh BIN TMP mpirun  mpirun -np 4 ... --shard auto (skipped, 77,
#                                  without mpirun; CI installs openmpi-bin)
set -u
bin=$1 tmp=$2 mode=${3:-seq}
tools=$(cd "$(dirname "$0")" && pwd)
py=${PT_PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "python3 absent: skipped"; exit 77; }
if [ "$mode" = mpirun ]; then
    command -v mpirun >/dev/null 2>&1 || { echo "mpirun absent (Debian: openmpi-bin): skipped"; exit 77; }
fi
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
same() {   # single.json merged.json: equal but for the paths
    "$py" - "$1" "$2" <<'PY' || exit 1
import json, sys
def norm(x):
    if isinstance(x, dict): return {k: norm(v) for k, v in x.items() if k not in ("path", "file")}
    if isinstance(x, list): return [norm(v) for v in x]
    if isinstance(x, float): return round(x, 3)
    return x
a, b = (norm(json.load(open(p))) for p in sys.argv[1:3])
bad = [k for k in a if a[k] != b.get(k)] + [k for k in b if k not in a]
for k in bad: print("FAIL: %s differs:\n  %s\n  %s" % (k, str(a.get(k))[:400], str(b.get(k))[:400]))
n = {k: len(a[k]) for k in a if isinstance(a[k], list)}
print("compared:", n)
sys.exit(1 if bad or not all(n[k] for k in ("ranks", "steps", "kernel_types", "top_kernels", "idle", "phases", "groups")) else 0)
PY
}
"$py" "$tools/gen_trace.py" "$tmp/tr" --ranks 8 --steps 3 --pp 2 --micro 2 --tp 2 --pg-config --recompute \
    >/dev/null 2>&1 || fail "gen_trace.py"
"$bin" trace "$tmp/tr" --format json --per-step >"$tmp/single.json" 2>"$tmp/single.err" || { cat "$tmp/single.err"; fail "single run"; }
if [ "$mode" = mpirun ]; then
    mpirun --allow-run-as-root --oversubscribe -np 4 "$bin" trace "$tmp/tr" --shard auto -o "$tmp/sh" \
        >"$tmp/mpi.out" 2>&1 || { cat "$tmp/mpi.out"; fail "mpirun"; }
    n=4
else
    for k in 1 2 3; do "$bin" trace "$tmp/tr" --shard $k/3 -o "$tmp/sh" 2>>"$tmp/sh.err" || { cat "$tmp/sh.err"; fail "shard $k/3"; }; done
    n=3
    grep -q "shard 2 of 3: trace files 3..5 of 8 (a contiguous block" "$tmp/sh.err" || { cat "$tmp/sh.err"; fail "block message"; }
fi
c=$(ls "$tmp/sh" | grep -c "^trace\.shard-[1-$n]-of-$n\.json\$")
[ "$c" = $n ] || { ls -a "$tmp/sh"; fail "expected $n shards, found $c"; }
ls -a "$tmp/sh" | grep -q '\.in\.\|\.tmp\.' && { ls -a "$tmp/sh"; fail "temporary files left"; }
"$bin" trace --merge "$tmp/sh" --format json >"$tmp/merged.json" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge"; }
same "$tmp/single.json" "$tmp/merged.json"
# --top folds the tail into others at the merge as the single run does
"$bin" trace "$tmp/tr" --format json --per-step --top 2 >"$tmp/single2.json" 2>/dev/null || fail "single --top 2"
"$bin" trace --merge "$tmp/sh" --format json --top 2 >"$tmp/merged2.json" 2>/dev/null || fail "merge --top 2"
same "$tmp/single2.json" "$tmp/merged2.json"
# the folder of shards read directly (the shard reader) is the same run
"$bin" trace "$tmp/sh" --format json --per-step >"$tmp/direct.json" 2>"$tmp/direct.err" || { cat "$tmp/direct.err"; fail "direct"; }
same "$tmp/single.json" "$tmp/direct.json"
# --merge ... -o FILE: one shard file, read as any shard
"$bin" trace --merge "$tmp/sh" -o "$tmp/one.json" 2>"$tmp/one.err" || { cat "$tmp/one.err"; fail "merge -o"; }
"$bin" trace "$tmp/one.json" --format json --per-step >"$tmp/one_read.json" 2>/dev/null || fail "read the merged file"
same "$tmp/single.json" "$tmp/one_read.json"
# what needs each kernel is refused on shards, with the reason
for opt in "--from 0 --to 100" "--kernels $tmp/k.csv" "--patterns /dev/null"; do
    if "$bin" trace "$tmp/sh" $opt >/dev/null 2>"$tmp/refused.err"; then fail "$opt on shards accepted"; fi
    grep -q "needs the trace files: .* holds trace shards" "$tmp/refused.err" || { cat "$tmp/refused.err"; fail "$opt message"; }
done
[ -e "$tmp/k.csv" ] && fail "--kernels on shards wrote a file"
# a half-written shard or a missing one: said, naming the file and the ranks left out; the rest shown
mv "$tmp/sh/trace.shard-2-of-$n.json" "$tmp/sh/trace.shard-2-of-$n.json.tmp.1"
"$bin" trace --merge "$tmp/sh" --format json >/dev/null 2>"$tmp/half.err" || { cat "$tmp/half.err"; fail "half-written set"; }
grep -q "trace.shard-2-of-$n.json.tmp.1 is a half-written shard" "$tmp/half.err" || { cat "$tmp/half.err"; fail "half-written message"; }
grep -q "shard 2 of $n is missing or unreadable" "$tmp/half.err" || { cat "$tmp/half.err"; fail "missing message"; }
grep -q "ranks missing (of 0..7" "$tmp/half.err" || { cat "$tmp/half.err"; fail "missing ranks message"; }
echo "1 passed, 0 failed"
