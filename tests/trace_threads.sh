#!/bin/sh
# probetop trace: the ranks are parsed and built on several threads
# (src/io/trace/read_trace.c, trace_build.c); every output must be byte for
# byte the one of a single thread (PROBETOP_THREADS, model/util/pool.h):
# the tables (csv, json, --per-step, --phases), the --kernels file (rank
# then start order), and the warnings and their order on stderr.  Runs:
# 8 ranks with micro-batches, pipeline sends and receives and EP groups; a
# rank of two files with ProfilerStep numbers met twice (warnings);
# TraceViz iteration folders; a bomb of sub-us kernels within --mem 8M
# (kernels sorted through temporary files, lane views merged); one rank,
# whose build sums its window on a thread to spare.
#   trace_threads.sh BIN TMP
set -u
bin=$1 tmp=$2
tools=$(cd "$(dirname "$0")" && pwd)
py=${PT_PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "python3 absent: skipped"; exit 77; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
gen() { d=$1; shift; "$py" "$tools/gen_trace.py" "$tmp/$d" "$@" > /dev/null || { echo "FAIL: gen_trace.py $*"; exit 1; }; }
gen mega --ranks 8 --steps 4 --micro 4 --pp 2 --p2p --ep 2 --pg-config --recompute
gen two --ranks 3 --steps 3 --micro 2
cp "$tmp/two/rank_1.json" "$tmp/two/rank_1_again.json" || exit 1   # rank 1: two files, every step twice
gen tviz --ranks 4 --steps 3 --layout traceviz
gen bomb --ranks 3 --steps 4 --bomb 200000
gen one --ranks 1 --steps 4 --micro 4 --recompute   # one rank: its window's figures summed on a second thread (trace_build.c)
n=0
for d in mega two tviz bomb one; do
    mem=4G
    [ "$d" = bomb ] && mem=8M
    for args in "--format csv" "--format json" "--per-step --format json" "--phases --format csv" "--per-step --format csv"; do
        for th in 1 4; do
            # shellcheck disable=SC2086
            PROBETOP_THREADS=$th "$bin" trace "$tmp/$d" $args --mem $mem --kernels "$tmp/k.$th.csv" > "$tmp/out.$th" 2> "$tmp/err.$th"
            echo "rc $?" >> "$tmp/out.$th"
        done
        for f in out err k; do
            a="$tmp/$f.1" b="$tmp/$f.4"
            [ "$f" = k ] && a="$tmp/k.1.csv" b="$tmp/k.4.csv"
            cmp -s "$a" "$b" || { echo "FAIL: $d, trace $args: $f differs between 1 and 4 threads"; diff "$a" "$b" | head -20; exit 1; }
        done
        n=$((n + 1))
    done
    grep -q "^rc 0" "$tmp/out.1" || { echo "FAIL: $d: probetop trace failed"; cat "$tmp/err.1"; exit 1; }
done
# the runs show what they are meant to: warnings of the two-file rank, merged lanes and spilled kernels of the bomb
PROBETOP_THREADS=4 "$bin" trace "$tmp/two" --format csv 2> "$tmp/err.two" > /dev/null
grep -q "rank 1: 2 trace files" "$tmp/err.two" && grep -q "ProfilerStep#N numbers appear more than once" "$tmp/err.two" ||
    { echo "FAIL: the two-file rank's warnings are missing"; cat "$tmp/err.two"; exit 1; }
PROBETOP_THREADS=4 "$bin" trace "$tmp/bomb" --format csv --mem 8M 2> "$tmp/err.bomb" > /dev/null
grep -q "merged into" "$tmp/err.bomb" && grep -q "temporary file" "$tmp/err.bomb" ||
    { echo "FAIL: the bomb neither merged its lanes nor spilled"; cat "$tmp/err.bomb"; exit 1; }
echo "ok: $n runs the same on 1 and 4 threads"
rm -rf "$tmp"
