#!/bin/sh
# The origin search over many ranks: `probetop overflow` on one step of
# 64, 256 and 1024 ranks (sizes 4x apart; 4096 with ORIGIN_4096=1, about
# 2.2 GB made here), about 0.55 MB of dump.json a rank (tests/gen_origin.py
# --ranks N --layers 180: tensor-parallel pairs, send/recv between them, a
# broadcast from rank 0 to all), a NaN born midway on rank N/2.  For each:
# wall and CPU seconds of the whole command (best of BENCH_REPS, default 3,
# by wall), its peak RSS against the input's size, and the rules alone
# (bench_origin: origin_find, best of 3), with the load average.  With
# PT_BIN_BEFORE set (a probetop built before a change), the same figures
# for it, and whether both print the same JSON.  Called from run.sh; alone:
#   PT_BUILD=build sh tests/bench/origin_scale.sh
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
BEFORE=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
REPS=${BENCH_REPS:-3}
GEN=$(dirname "$0")/../gen_origin.py
SIZES="64 256 1024"
[ "${ORIGIN_4096:-0}" = 1 ] && SIZES="$SIZES 4096"
mkdir -p "$B/bench-out"
echo "== origin search over ranks: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# best of REPS: "wall cpu rss_kb"
run() {
    best=""
    for i in $(seq "$REPS"); do
        /usr/bin/time -f "%e %U %S %M" -o "$B/bench-out/origin.time" "$1" overflow "$2" --format json \
            > "$3" 2>/dev/null
        l=$(tail -1 "$B/bench-out/origin.time")
        w=$(echo "$l" | cut -d' ' -f1)
        if [ -z "$best" ] || [ "$(echo "$w < $(echo "$best" | cut -d' ' -f1)" | bc)" = 1 ]; then
            best=$(echo "$l" | awk '{printf "%s %.2f %s", $1, $2 + $3, $4}')
        fi
    done
    echo "$best"
}
for n in $SIZES; do
    D=$B/bench-data/origin_scale/r$n
    if [ ! -f "$D/.done" ]; then
        rm -rf "$D" && $PY "$GEN" --out "$D/step0" --ranks "$n" --layers 180 && touch "$D/.done" || exit 1
    fi
    kb=$(du -skL "$D/step0" | cut -f1)
    for which in before after; do
        if [ $which = before ]; then b=$BEFORE; else b=$BIN; fi
        [ -n "$b" ] || continue
        set -- $(run "$b" "$D/step0" "$B/bench-out/origin.$which.json")
        echo "overflow $n ranks ($((kb / 1024)) MB input) $which: seconds=$1 cpu=$2 peak_rss_mb=$(($3 / 1024)) rss/input=$(echo "scale=2; $3 / $kb" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
    done
    if [ -n "$BEFORE" ]; then
        cmp -s "$B/bench-out/origin.before.json" "$B/bench-out/origin.after.json" && echo "  same JSON before and after" ||
            echo "  JSON DIFFERS before and after"
    fi
    "$B/tests/bench_origin" "$D/step0" 3 | sed -n 1p
done
