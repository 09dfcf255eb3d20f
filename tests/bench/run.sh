#!/bin/sh
# The benchmark: prints the figures README.md states (load, data2db,
# overflow, compare, traces, the TUI's frames).  Run it with
#   cmake --build build --target bench
# Data comes from tests/gen_dump.py and is cached in $PT_BUILD/bench-data.
# BENCH_SCALE=full (default: 8 steps x 8 ranks x 48 layers, mix, 5 micro-batches,
# TP 2, ~958 MB, the reference dump of README.md's figures) or small (2 x 2 x 4, seconds).
# MSPROBE_SRC=<msProbe checkout> also times msProbe's own data2db on the same data.
set -u
B=${PT_BUILD:-build}
GEN_DUMP=$(dirname "$0")/../gen_dump.py
BIN=${PT_BIN:-$B/probetop}
PY=${PYTHON:-python3}
SCALE=${BENCH_SCALE:-full}
DATA=$B/bench-data/$SCALE
case $SCALE in
    full) GEN="--steps 8 --ranks 8 --layers 48 --micro-batches 5 --tp 2" ;;
    *)    GEN="--steps 2 --ranks 2 --layers 4 --micro-batches 2 --tp 2" ;;
esac
if [ ! -f "$DATA/.done" ]; then
    echo "bench: generating $SCALE dump with gen_dump.py $GEN ..."
    rm -rf "$DATA" && mkdir -p "$DATA"
    $PY "$GEN_DUMP" --out "$DATA/dump" $GEN --quiet || exit 1
    $PY "$GEN_DUMP" --out "$DATA/nan" $GEN --nan 3:5:layers.20.mlp --quiet || exit 1
    touch "$DATA/.done"
fi
echo "== reading dumps: $(du -sh "$DATA/dump" | cut -f1) of dump.json, $(nproc) cores"
"$B/tests/bench_ingest" parse "$DATA/dump"
"$B/tests/bench_ingest" ingest "$DATA/dump"
rm -rf "$B/bench-out" && mkdir -p "$B/bench-out"
"$B/tests/bench_ingest" data2db "$DATA/dump" "$B/bench-out/probetop"
# data2db against msProbe's own (measured when MSPROBE_SRC is set, else
# MS below, its time measured once at the full scale).  Best of 3 by wall
# time, with the CPU seconds (user + system) and peak RSS of that run and
# the load average: on a shared machine the wall time also counts other
# processes, the CPU time does not.
if [ -n "${MSPROBE_SRC:-}" ]; then
    # from a copy of its python folder: msProbe refuses paths holding '+', its own too
    MSCOPY=$B/bench-data/msprobe_copy
    [ -d "$MSCOPY/python" ] || { mkdir -p "$MSCOPY" && cp -r "$MSPROBE_SRC/python" "$MSCOPY/"; }
    T0=$(date +%s.%N)
    PYTHONHASHSEED=0 PYTHONPATH="$MSCOPY/python" ${MSPROBE_PYTHON:-/usr/bin/python3} -m msprobe.msprobe data2db \
        --data "$DATA/dump" --db "$B/bench-out/msprobe" >/dev/null 2>&1
    T1=$(date +%s.%N)
    MS=$(echo "$T1 - $T0" | bc)
    MSWHAT="measured now, load $(cut -d' ' -f1 /proc/loadavg)"
    if [ ! -f "$B/bench-out/msprobe/dump_data.trend.db" ]; then
        MS=""; echo "msProbe's data2db wrote no database (PYTHONPATH=$MSCOPY/python python3 -m msprobe.msprobe data2db)"
    fi
else
    MS=41.7
    [ "$SCALE" = full ] || MS=""
    MSWHAT="reference on this machine, set MSPROBE_SRC to measure"
fi
best=""
for i in 1 2 3; do
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%e %U %S %M" -o "$B/bench-out/d2d.time" \
            "$BIN" data2db --data "$DATA/dump" --db "$B/bench-out/cli" 2>/dev/null
        read -r t u s m < "$B/bench-out/d2d.time"
        cpu=$(awk "BEGIN { print $u + $s }")
        rss=$((m / 1024))
    else
        T0=$(date +%s.%N)
        "$BIN" data2db --data "$DATA/dump" --db "$B/bench-out/cli" 2>/dev/null
        T1=$(date +%s.%N)
        t=$(echo "$T1 - $T0" | bc); cpu="?"; rss="?"
    fi
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; bcpu=$cpu; brss=$rss; fi
done
if [ -n "$MS" ]; then
    ratio=$(echo "scale=1; $MS / $best" | bc)
    echo "probetop data2db (whole command) seconds=$best best of 3 (CPU $bcpu s, peak RSS $brss MB, load $(cut -d' ' -f1 /proc/loadavg)) | msProbe data2db seconds=$MS ($MSWHAT) | ${ratio}x (goal 20x)"
else
    echo "probetop data2db (whole command) seconds=$best best of 3 (CPU $bcpu s, peak RSS $brss MB, load $(cut -d' ' -f1 /proc/loadavg))"
fi
# data2db --shard (probetop(1)): the same conversion as shards, 1 task and 2 tasks at once (as
# mpirun/srun would start them), then the merge into one database
for N in 1 2; do
    rm -rf "$B/bench-out/shard$N" "$B/bench-out/merged$N"
    T0=$(date +%s.%N)
    K=1
    while [ $K -le $N ]; do
        "$BIN" data2db --data "$DATA/dump" --db "$B/bench-out/shard$N" --shard $K/$N 2>/dev/null &
        K=$((K + 1))
    done
    wait
    T1=$(date +%s.%N)
    "$BIN" data2db --merge "$B/bench-out/shard$N" --db "$B/bench-out/merged$N" 2>/dev/null
    T2=$(date +%s.%N)
    echo "probetop data2db --shard K/$N, $N task(s) at once seconds=$(echo "$T1 - $T0" | bc), then --merge seconds=$(echo "$T2 - $T1" | bc)"
done
echo "== progressive folders: the first step on screen while the rest loads"
[ -x "$B/tests/bench_tui_grow" ] && PT_BIN="$BIN" "$B/tests/bench_tui_grow" "$DATA/dump"
sh "$(dirname "$0")/lazy.sh"
sh "$(dirname "$0")/crafted_db.sh"
echo "== overflow"
T0=$(date +%s.%N)
"$BIN" info "$DATA/nan" >/dev/null 2>&1
T1=$(date +%s.%N)
echo "probetop info (plain ingest) seconds=$(echo "$T1 - $T0" | bc)"
if "$BIN" help overflow >/dev/null 2>&1; then
    T0=$(date +%s.%N)
    "$BIN" overflow "$DATA/nan" --limit 5 >/dev/null 2>&1
    T1=$(date +%s.%N)
    echo "probetop overflow seconds=$(echo "$T1 - $T0" | bc)"
fi
echo "== origin rank across communication"
OD=$B/bench-data/origin256
if [ ! -f "$OD/.done" ]; then
    rm -rf "$OD" && $PY "$(dirname "$0")/../gen_origin.py" --out "$OD/step0" --ranks 256 && touch "$OD/.done"
fi
PT_BIN="$BIN" "$B/tests/bench_origin" "$OD/step0"
sh "$(dirname "$0")/origin_scale.sh"
echo "== compare"
PT_BIN="$BIN" "$B/tests/bench_compare" "$DATA/nan" "$DATA/dump"
# time and memory against the input, sizes 4x apart (PT_OLD_BIN: before and after)
PT_BUILD="$B" PT_BIN="$BIN" sh "$(dirname "$0")/compare_scale.sh"
[ -x "$B/tests/bench_tui_graph" ] && PT_BIN="$BIN" "$B/tests/bench_tui_graph" "$DATA/nan/step0/rank0" "$DATA/dump/step0/rank0" 5
[ -x "$B/tests/bench_tui_flow" ] && PT_BIN="$BIN" "$B/tests/bench_tui_flow" "$DATA/nan/step0/rank0" Functional.linear.1.forward 10
echo "== whole-run first divergence"
# The 8 rank pairs of the step holding the planted NaN (step 3, rank 5), then
# the whole run (every step): `compare --first`, best of 3 by wall time, with
# the CPU seconds (user + system) of that run when /usr/bin/time is there:
# on a shared machine the wall time also counts other processes.
first_run() {
    best=""
    for i in 1 2 3; do
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f "%e %U %S" -o "$B/bench-out/first.time" \
                "$BIN" compare "$1" "$2" --first > "$B/bench-out/first.txt" 2>/dev/null
            # (the last line: time adds "Command exited with non-zero status 1" before it)
            t=$(tail -1 "$B/bench-out/first.time" | cut -d' ' -f1)
            cpu=$(tail -1 "$B/bench-out/first.time" | awk '{print $2 + $3}')
        else
            T0=$(date +%s.%N)
            "$BIN" compare "$1" "$2" --first > "$B/bench-out/first.txt" 2>/dev/null
            T1=$(date +%s.%N)
            t=$(echo "$T1 - $T0" | bc)
            cpu="?"
        fi
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; bcpu=$cpu; fi
    done
    echo "$best (CPU $bcpu s)"
}
t=$(first_run "$DATA/nan/step3" "$DATA/dump/step3")
echo "probetop compare --first, 8 rank pairs of one step ($(du -sh "$DATA/nan/step3" | cut -f1) a side) seconds=$t best of 3, load $(cut -d' ' -f1 /proc/loadavg) (target 3 s; msProbe graph_visualize: 127 s, per graph only)"
echo "  answer: $(cut -f1-4,7 "$B/bench-out/first.txt")"
t=$(first_run "$DATA/nan" "$DATA/dump")
echo "probetop compare --first, the whole run, $(ls -d "$DATA"/nan/step*/rank* | wc -l) pairs ($(du -sh "$DATA/nan" | cut -f1) a side) seconds=$t best of 3"
echo "  answer: $(cut -f1-4,7 "$B/bench-out/first.txt")"
sh "$(dirname "$0")/visdb.sh"
sh "$(dirname "$0")/trace.sh"
echo "== the JSON tokenizer"
[ -x "$B/tests/bench_lex" ] && PT_BENCH_LEX="$B/tests/bench_lex" sh "$(dirname "$0")/lexer.sh" "$DATA/dump" "$B/bench-data/trace1g"
echo "== lane view"
LD=$B/bench-data/lanes64
if [ ! -f "$LD/.done" ]; then
    rm -rf "$LD" && $PY "$(dirname "$0")/../gen_trace.py" "$LD" --ranks 64 --pp 8 --steps 3 --micro 100 --straggler 37 &&
        touch "$LD/.done"
fi
[ -x "$B/tests/bench_tui_lanes" ] && PT_BIN="$BIN" "$B/tests/bench_tui_lanes" "$LD" 10
echo "== lane view at cluster scale (1 024 ranks, PP 4, about 2 000 kernels per step; goal: key to frame < 20 ms)"
LG=$B/bench-data/lanes1024
if [ ! -f "$LG/.done" ]; then
    rm -rf "$LG" && $PY "$(dirname "$0")/../gen_trace.py" "$LG" --ranks 1024 --pp 4 --pg-config --steps 2 --micro 160 --gz &&
        touch "$LG/.done"
fi
[ -x "$B/tests/bench_tui_lanes" ] && PT_BIN="$BIN" "$B/tests/bench_tui_lanes" "$LG" 5
echo "== pipeline view at cluster scale (1 024 ranks, PP 4, 1F1B with sends and receives, about 2 000 kernels per step; goal: key to frame < 20 ms)"
LP=$B/bench-data/pipe1024
if [ ! -f "$LP/.done" ]; then
    rm -rf "$LP" && $PY "$(dirname "$0")/../gen_trace.py" "$LP" --ranks 1024 --pp 4 --pg-config --steps 2 --micro 128 --schedule 1f1b --p2p --gz &&
        touch "$LP/.done"
fi
[ -x "$B/tests/bench_tui_pipeline" ] && PT_BIN="$BIN" "$B/tests/bench_tui_pipeline" "$LP" 5
