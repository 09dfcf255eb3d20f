#!/bin/sh
# The JSON tokenizer's figures (src/io/common/json.c), for one
# build or, with PT_BIN_BEFORE / PT_BENCH_LEX_BEFORE, before and after:
#   - bench_lex: the tokenizer alone per CPU second on the dump.json files
#     and on a trace (each scan variant, numbers by decfloat and by strtod),
#     skipping values whole, and the page cache's rate for the same files;
#   - probetop data2db on the dump (best of N by wall time, with that run's
#     CPU seconds and peak RSS), beside msProbe's 41.7 s for 958 MB;
#   - probetop trace on the trace folder (MB/s);
#   - the fixed start-up: data2db on a one-layer dump (best of N);
#   - with CALLGRIND=1, valgrind's instruction count of data2db on the
#     dump's first step (reproducible on a loaded machine).
# Every line carries the load average: the machine may be shared.
#   sh tests/bench/lexer.sh DUMP TRACE_DIR
set -u
DUMP=$1 TRACES=$2
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
LEX=${PT_BENCH_LEX:-$B/tests/bench_lex}
N=${BENCH_N:-3}
PY=${PYTHON:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
mb() { du -cb "$@" 2>/dev/null | tail -1 | awk '{printf "%.0f", $1 / 1e6}'; }
dump_mb=$(find "$DUMP" -name dump.json -exec du -cb {} + | awk '$2 == "total" {s += $1} END {printf "%.0f", s / 1e6}')
trace_mb=$(mb "$TRACES"/*.json*)
# best of N by wall time: "wall cpu rss_mb"
best() {
    b=""
    i=0
    while [ $i -lt "$N" ]; do
        rm -rf "$T/out"
        /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >/dev/null 2>&1
        set -- "$@"
        w=$(tail -1 "$T/time" | cut -d' ' -f1)
        if [ -z "$b" ] || [ "$(echo "$w < $b" | bc)" = 1 ]; then
            b=$w
            line=$(tail -1 "$T/time" | awk '{printf "%s %.2f %.0f", $1, $2 + $3, $4 / 1024}')
        fi
        i=$((i + 1))
    done
    echo "$line"
}
for side in before after; do
    if [ $side = before ]; then
        bin=${PT_BIN_BEFORE:-}; lex=${PT_BENCH_LEX_BEFORE:-}
        [ -n "$bin" ] || continue
    else
        bin=$BIN; lex=$LEX
    fi
    echo "== $side: $bin (load $(load))"
    if [ -n "$lex" ] && [ -x "$lex" ]; then
        "$lex" -n "$N" "$DUMP"
        "$lex" -n "$N" "$(ls "$TRACES"/*.json | head -1)"
    fi
    set -- $(best "$bin" data2db --data "$DUMP" --db "$T/out")
    echo "probetop data2db, $dump_mb MB of dump.json: $1 s wall (CPU $2 s, peak RSS $3 MB; $(echo "scale=2; $1 * 1000 / $dump_mb" | bc) s/GB) | msProbe 41.7 s for 958 MB: $(echo "scale=1; 41.7 * $dump_mb / 958 / $1" | bc)x (load $(load))"
    set -- $(best "$bin" trace "$TRACES" --format csv)
    echo "probetop trace, $trace_mb MB: $1 s wall (CPU $2 s, peak RSS $3 MB; $(echo "scale=0; $trace_mb / $1" | bc) MB/s) (load $(load))"
    if [ ! -d "$T/tiny" ]; then
        $PY "$(dirname "$0")/../gen_dump.py" --out "$T/tiny" --steps 1 --ranks 1 --layers 1 --micro-batches 1 --tp 1 --quiet
    fi
    # the fixed costs: the mean of 20 runs (milliseconds are below /usr/bin/time's grain)
    t0=$(date +%s%N)
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        rm -rf "$T/out"; "$bin" data2db --data "$T/tiny" --db "$T/out" >/dev/null 2>&1
    done
    t1=$(date +%s%N)
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "$bin" help data2db >/dev/null 2>&1; done
    t2=$(date +%s%N)
    echo "fixed start-up: probetop data2db on a one-layer dump ($(du -sk "$T/tiny" | cut -f1) KB) $(( (t1 - t0) / 20000000 )) ms, the process alone (help) $(( (t2 - t1) / 20000000 )) ms (mean of 20, load $(load))"
    if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
        rm -rf "$T/out"
        ir=$(valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$bin" data2db --data "$DUMP/step0" --db "$T/out" 2>&1 |
             sed -n 's/.*refs: *//p')
        echo "valgrind instructions, data2db on $DUMP/step0: $ir"
        valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$bin" data2db --data "$T/tiny" --db "$T/out2" 2>&1 |
            sed -n 's/.*refs: */valgrind instructions, data2db on the one-layer dump: /p'
    fi
done
