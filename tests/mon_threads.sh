#!/bin/sh
# Monitor trees (v1 and monitor_v2) are parsed on several threads, handed
# over in the files' order (src/io/monitor/mon_cache.c, mon_cache_read_each;
# read_monitor_tree.c): every output must be byte for byte the one of a
# single thread (PROBETOP_THREADS, model/util/pool.h) -- `info` as text and
# as JSON (but the load time), the warnings and their order on stderr, and
# data2db's canonical .trend.db and its notes (the streamed read).  Trees:
# generated v1 and v2 with planted NaNs and Infs, 3 ranks of more files
# than the threads parse ahead (MC_AHEAD) and than data2db hands over at
# once (MONITOR_STREAM_FILES), a cut row, a bad file and a stray one; the
# real fixtures of tests/data.
#   mon_threads.sh BIN TMP
set -u
bin=$1 tmp=$2
tools=$(cd "$(dirname "$0")" && pwd)
py=${PT_PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "python3 absent: skipped"; exit 77; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
gen() { d=$1; shift; "$py" "$tools/gen_dump.py" --out "$tmp/$d" "$@" --quiet >/dev/null 2>&1 || fail "gen_dump.py $*"; }
gen v1 --monitor --steps 12 --ranks 3 --layers 2 --micro-batches 2 --nan 4:1:mlp --nan 7:2:attn:inf
gen v2 --monitor --monitor-v2 --steps 12 --ranks 3 --layers 2 --micro-batches 2 --nan 4:1:mlp --nan 7:2:attn:inf
# notes in the middle of the trees: a cut last row, a file of no header, a CSV that is no metric
for d in v1 v2; do
    r=$(ls -d "$tmp/$d"/*rank1-* "$tmp/$d"/rank_1 2>/dev/null | head -1)
    f=$(ls "$r"/*.csv | sed -n 5p)
    head -c $(($(wc -c < "$f") - 7)) "$f" > "$f.cut" && mv "$f.cut" "$f"
    f=$(ls "$r"/*.csv | sed -n 9p)
    printf 'garbage,no,header\n1,2\n' > "$f"
    printf 'a,b\n1,2\n' > "$r/notes.csv"
done
n=0
check() {   # check NAME BIN-ARGS...: the same on 1, 2 and 4 threads
    name=$1; shift
    for th in 1 2 4; do
        PROBETOP_THREADS=$th "$bin" "$@" > "$tmp/out.$th" 2> "$tmp/err.$th"
        echo "rc $?" >> "$tmp/out.$th"
        sed -i -e '/^load time /d' -e 's/"load_seconds": [0-9.e+-]*/"load_seconds": X/' "$tmp/out.$th"
    done
    for th in 2 4; do
        for f in out err; do
            cmp -s "$tmp/$f.1" "$tmp/$f.$th" || { diff "$tmp/$f.1" "$tmp/$f.$th" | head -20; fail "$name: $f differs between 1 and $th threads"; }
        done
    done
    n=$((n + 1))
}
trees="$tmp/v1 $tmp/v2"
fx=$tools/data
for d in msprobe/derived/synthetic_monitor_output msprobe/derived/monitor_v2_output nonfinite/monitor; do
    [ -d "$fx/$d" ] || fail "fixture $d missing"
    trees="$trees $fx/$d"
done
for t in $trees; do
    check "info $t" info "$t"
    grep -q "^rc 0" "$tmp/out.1" || { cat "$tmp/err.1"; fail "info $t failed"; }
    check "info --json $t" info "$t" --json
    check "info --micro_step false $t" info "$t" --micro_step false
    for th in 1 2; do
        rm -rf "$tmp/db.$th"
        PROBETOP_THREADS=$th "$bin" data2db --data "$t" --db "$tmp/db.$th" > "$tmp/d2.$th" 2>&1 || { cat "$tmp/d2.$th"; fail "data2db $t"; }
        "$py" "$tools/trenddb_canon.py" "$tmp/db.$th/monitor_data.trend.db" > "$tmp/canon.$th" || fail "trenddb_canon.py $t"
    done
    cmp -s "$tmp/canon.1" "$tmp/canon.2" || fail "data2db $t: the canonical .trend.db differs between 1 and 2 threads"
    sed -i '/ s\b\|seconds\|[0-9] s$/d' "$tmp/d2.1" "$tmp/d2.2"
    cmp -s "$tmp/d2.1" "$tmp/d2.2" || { diff "$tmp/d2.1" "$tmp/d2.2" | head; fail "data2db $t: notes differ"; }
    n=$((n + 1))
done
# the runs show what they are meant to: the NaNs, the cut row and the bad files
"$bin" info "$tmp/v1" > "$tmp/v1.info" 2>&1
grep -q "non-finite [1-9]" "$tmp/v1.info" || fail "v1: no non-finite value counted"
grep -q "^partial " "$tmp/v1.info" || fail "v1: the cut row is not reported"
grep -q "^warning " "$tmp/v1.info" || fail "v1: no warning"
"$bin" info "$tmp/v2" > "$tmp/v2.info" 2>&1
grep -q "non-finite [1-9]" "$tmp/v2.info" || fail "v2: no non-finite value counted"
echo "ok: $n runs the same on 1, 2 and 4 threads"
