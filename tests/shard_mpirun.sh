#!/bin/sh
# data2db --shard auto under the real launcher: mpirun -np 4 converts a
# generated dump (and a monitor tree) in four tasks, data2db --merge joins the
# shards, and the result prints (trenddb_canon.py) exactly as the one-process
# database.
# Skips (77) without mpirun or python3; the generators are beside this script
# (tests/gen_dump.py, tests/trenddb_canon.py).
set -u
bin=$1 tmp=$2
tools=$(cd "$(dirname "$0")" && pwd)
py=${PT_PYTHON:-python3}
command -v mpirun >/dev/null 2>&1 || { echo "mpirun absent (Debian: openmpi-bin): skipped"; exit 77; }
command -v "$py" >/dev/null 2>&1 || { echo "python3 absent: skipped"; exit 77; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$py" "$tools/gen_dump.py" --out "$tmp/dump" --steps 3 --ranks 8 --layers 4 --micro-batches 2 --tp 2 --pp 2 \
    --nan 1:5:mlp --quiet >/dev/null 2>&1 || fail "gen_dump.py"
"$bin" data2db --data "$tmp/dump" --db "$tmp/single" 2>"$tmp/single.err" || { cat "$tmp/single.err"; fail "single run"; }
# root in a container: Open MPI wants both flags; tasks share the 2 cores
mpirun --allow-run-as-root --oversubscribe -np 4 "$bin" data2db --data "$tmp/dump" --db "$tmp/shards" --shard auto \
    >"$tmp/mpi.out" 2>&1 || { cat "$tmp/mpi.out"; fail "mpirun"; }
n=$(ls "$tmp/shards" | grep -c '^dump_data\.shard-[1-4]-of-4\.trend\.db$')
[ "$n" = 4 ] || { ls "$tmp/shards"; fail "expected 4 shards, found $n"; }
"$bin" data2db --merge "$tmp/shards" --db "$tmp/merged" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge"; }
"$py" "$tools/trenddb_canon.py" "$tmp/single/dump_data.trend.db" >"$tmp/single.canon" || fail "canon single"
"$py" "$tools/trenddb_canon.py" "$tmp/merged/dump_data.trend.db" >"$tmp/merged.canon" || fail "canon merged"
cmp -s "$tmp/single.canon" "$tmp/merged.canon" || { diff "$tmp/single.canon" "$tmp/merged.canon" | head; fail "merge differs"; }
# the folder of shards reads as the single database
"$bin" info "$tmp/shards" | grep -v '^\(path\|opened\|databases\|files read\|load time\)' >"$tmp/info.shards" || fail "info shards"
"$bin" info "$tmp/single" | grep -v '^\(path\|opened\|databases\|files read\|load time\)' >"$tmp/info.single" || fail "info single"
cmp -s "$tmp/info.shards" "$tmp/info.single" || { diff "$tmp/info.single" "$tmp/info.shards"; fail "info differs"; }
# a monitor tree the same way
"$py" "$tools/gen_dump.py" --out "$tmp/mon" --steps 3 --ranks 6 --layers 2 --micro-batches 2 --tp 2 --monitor \
    --quiet >/dev/null 2>&1 || fail "gen_dump.py --monitor"
"$bin" data2db --data "$tmp/mon" --db "$tmp/mon-single" 2>"$tmp/mon.err" || { cat "$tmp/mon.err"; fail "monitor single run"; }
mpirun --allow-run-as-root --oversubscribe -np 4 "$bin" data2db --data "$tmp/mon" --db "$tmp/mon-shards" --shard auto \
    >"$tmp/mon-mpi.out" 2>&1 || { cat "$tmp/mon-mpi.out"; fail "mpirun monitor"; }
"$bin" data2db --merge "$tmp/mon-shards" --db "$tmp/mon-merged" 2>"$tmp/mon-merge.err" || { cat "$tmp/mon-merge.err"; fail "monitor merge"; }
"$py" "$tools/trenddb_canon.py" "$tmp/mon-single/monitor_data.trend.db" >"$tmp/mon-single.canon" || fail "canon"
"$py" "$tools/trenddb_canon.py" "$tmp/mon-merged/monitor_data.trend.db" | cmp -s - "$tmp/mon-single.canon" ||
    fail "monitor merge differs"
# a task killed while writing (SIGKILL: no chance to clean up) leaves its
# temporary file: the folder is refused, never half-read, until it is rerun
mkdir -p "$tmp/killed"
"$bin" data2db --data "$tmp/dump" --db "$tmp/killed" --shard 1/2 2>/dev/null || fail "shard 1/2"
"$bin" data2db --data "$tmp/dump" --db "$tmp/killed" --shard 2/2 2>/dev/null &
pid=$!
# look until the temporary file shows, the writer has finished (its output
# is there) or two minutes passed: a fixed count of looks could outlast the
# writer by minutes under load
deadline=$(($(date +%s) + 120))
while [ -z "$(ls "$tmp/killed" | grep 'shard-2-of-2.trend.db.tmp.')" ] &&
      [ ! -f "$tmp/killed/dump_data.shard-2-of-2.trend.db" ] && [ "$(date +%s)" -lt $deadline ]; do :; done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -f "$tmp/killed/dump_data.shard-2-of-2.trend.db" ]; then
    echo "note: the writer finished before it could be killed; kill check not made"
else
    ls "$tmp/killed" | grep -q 'shard-2-of-2.trend.db.tmp.' || fail "no temporary file left by the killed writer"
    if "$bin" info "$tmp/killed" >"$tmp/killed.out" 2>&1; then cat "$tmp/killed.out"; fail "half-written shard was read"; fi
    grep -q "half-written shard" "$tmp/killed.out" || { cat "$tmp/killed.out"; fail "message"; }
    if "$bin" data2db --merge "$tmp/killed" --db "$tmp/killed-merged" 2>"$tmp/killed.err"; then fail "merge of a half-written set"; fi
    [ ! -e "$tmp/killed-merged" ] || fail "a failed merge left its output folder"
    # the task run again removes the dead writer's file and completes the set
    "$bin" data2db --data "$tmp/dump" --db "$tmp/killed" --shard 2/2 2>/dev/null || fail "rerun of shard 2/2"
    ls "$tmp/killed" | grep -q '\.tmp\.' && fail "stale temporary file kept"
    "$bin" data2db --merge "$tmp/killed" --db "$tmp/killed-merged" 2>/dev/null || fail "merge after rerun"
    "$py" "$tools/trenddb_canon.py" "$tmp/killed-merged/dump_data.trend.db" | cmp -s - "$tmp/single.canon" ||
        fail "merge after rerun differs"
fi
echo "1 passed, 0 failed"
