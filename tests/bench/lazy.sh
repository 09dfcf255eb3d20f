#!/bin/sh
# The lazy .trend.db benchmark (a database read by slices within --mem): start to the first heat map, key
# to frame and peak RSS in the real TUI for msProbe's fixture database, a
# 10 M-row and a 100 M-row monitor .trend.db generated here (bench_lazy gen,
# msProbe's schema), with the default --mem and with --mem 0 (slices only);
# the full load of the 10 M-row database (probetop info) beside; msProbe's
# own viewer queries when MSPROBE_SRC is set.  Called from run.sh; alone:
#   PT_BUILD=build sh tests/bench/lazy.sh
# The 100 M-row file is about 4.7 GB: made only with 12 GB free beside the
# build, deleted afterwards unless BENCH_KEEP_BIG=1.
set -u
B=${PT_BUILD:-build}
DATA=$(dirname "$0")/../data
BIN=${PT_BIN:-$B/probetop}
PY=${PYTHON:-python3}
LD=$B/bench-data/lazy
mkdir -p "$LD"
echo "== lazy .trend.db: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -f "$LD/t10m.trend.db" ]; then
    T0=$(date +%s.%N)
    "$B/tests/bench_lazy" gen "$LD/t10m.trend.db" 256 25 400 || exit 1
    echo "generated 10 M rows (256 ranks x 25 steps x 400 targets x 4 metrics) seconds=$(echo "$(date +%s.%N) - $T0" | bc)"
fi
BIG=""
avail_kb=$(df -Pk "$LD" | awk 'NR == 2 {print $4}')
if [ -f "$LD/t100m.trend.db" ] || [ "$avail_kb" -gt 12000000 ]; then
    if [ ! -f "$LD/t100m.trend.db" ]; then
        T0=$(date +%s.%N)
        "$B/tests/bench_lazy" gen "$LD/t100m.trend.db" 1024 64 384 || exit 1
        echo "generated 100 M rows (1024 ranks x 64 steps x 384 targets x 4 metrics) seconds=$(echo "$(date +%s.%N) - $T0" | bc)"
    fi
    BIG="100M=$LD/t100m.trend.db"
else
    echo "bench: under 12 GB free beside the build: the 100 M-row case is skipped"
fi
FIX=$DATA/msprobe-outputs/gpu_dump.dump_data.trend.db
FIXARG=""
[ -f "$FIX" ] && FIXARG="fixture=$FIX"
PT_BIN="$BIN" "$B/tests/bench_lazy" run $FIXARG "10M=$LD/t10m.trend.db" $BIG
PT_BIN="$BIN" "$B/tests/bench_lazy" run --mem 0 "10M=$LD/t10m.trend.db" $BIG
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M" -o "$LD/info.time" "$BIN" info "$LD/t10m.trend.db" >/dev/null 2>&1
    echo "10M by probetop info (by queries within --mem): seconds=$(cut -d' ' -f1 "$LD/info.time") peak RSS $(($(cut -d' ' -f2 "$LD/info.time") / 1024)) MB"
fi
if [ -n "${MSPROBE_SRC:-}" ]; then
    for f in "$LD/t10m.trend.db" ${BIG#100M=}; do
        echo "$(basename "$f"): $($PY "$(dirname "$0")/msprobe_viewer.py" "$MSPROBE_SRC" "$f" 2>/dev/null)"
    done
else
    echo "msProbe's viewer: set MSPROBE_SRC to time its heat-map queries"
fi
[ -n "${BENCH_KEEP_BIG:-}" ] || rm -f "$LD/t100m.trend.db"
