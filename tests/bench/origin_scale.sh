#!/bin/sh
# The origin search over many ranks: `probetop overflow` on one step of
# 64, 256 and 1024 ranks (sizes 4x apart, or ORIGIN_SIZES; 4096 with ORIGIN_4096=1, about
# 2.2 GB made here), about 0.55 MB of dump.json a rank (tests/gen_origin.py
# --ranks N --layers 180: tensor-parallel pairs, send/recv between them, a
# broadcast from rank 0 to all), a NaN born midway on rank N/2.  For each:
# wall and CPU seconds of the whole command (best of BENCH_REPS, default 3,
# by wall), its peak RSS against the input's size, and the rules alone
# (bench_origin: origin_find, best of 3), with the load average.  With
# PT_BIN_BEFORE set (a probetop built before a change), the same figures
# for it, and whether both print the same JSON.  Per size also the CPU
# seconds per MB of input and its growth against the size before (a straight
# line: CPU grows as the input does).  With BENCH_CALLGRIND=1, the
# instructions of the rules alone (origin_find, valgrind --tool=callgrind:
# repeatable on a shared machine) up to ORIGIN_CALLGRIND_MAX ranks (default
# 256).  With MSPROBE_SRC set, msProbe's own overflow_check on the same step
# up to ORIGIN_MSPROBE_MAX ranks (default 64; it refuses paths holding '+',
# so it runs from a copy of $MSPROBE_SRC/python in the build folder).
# The end: the goal lines of issue 27 point 2 (bench_goal.sh): <= 1 s by
# wall at 1024 ranks, peak RSS <= the input at every size, and the straight
# line (CPU-s/MB at the most ranks over the fewest).
# Called from run.sh; alone:
#   PT_BUILD=build sh tests/bench/origin_scale.sh
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
BEFORE=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
REPS=${BENCH_REPS:-3}
GEN=$(dirname "$0")/../gen_origin.py
SIZES=${ORIGIN_SIZES:-64 256 1024}
[ "${ORIGIN_4096:-0}" = 1 ] && SIZES="$SIZES 4096"
mkdir -p "$B/bench-out"
. "$(dirname "$0")/bench_goal.sh"
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
        perm=$(echo "scale=4; $2 * 1024 / $kb" | bc)
        eval "prev=\${prev_$which:-}"
        echo "overflow $n ranks ($((kb / 1024)) MB input) $which: seconds=$1 cpu=$2 peak_rss_mb=$(($3 / 1024)) rss/input=$(echo "scale=2; $3 / $kb" | bc) cpu_s/MB=$perm${prev:+ (x$(bench_ratio "$prev" "$perm") per MB vs the size before)} load $(cut -d' ' -f1 /proc/loadavg)"
        eval "prev_$which=$perm"
        eval "[ -n \"\${first_$which:-}\" ] || first_$which=$perm"
        eval "last_$which=$perm; wall_$which=$1"
        rpi=$(awk -v a="$3" -v b="$kb" 'BEGIN { printf "%.2f", a / b }')
        eval "[ \"\$(echo \"\${rpi_$which:-0} < $rpi\" | bc)\" = 0 ] || rpi_$which=$rpi"
    done
    if [ -n "$BEFORE" ]; then
        cmp -s "$B/bench-out/origin.before.json" "$B/bench-out/origin.after.json" && echo "  same JSON before and after" ||
            echo "  JSON DIFFERS before and after"
    fi
    if [ -x "$B/tests/bench_origin" ]; then
        "$B/tests/bench_origin" "$D/step0" 3 | sed -n 1p
    else
        echo "  rules alone: skipped, $B/tests/bench_origin is not built (cmake --build $B --target bench_origin)"
    fi
    if [ "${BENCH_CALLGRIND:-0}" = 1 ] && [ -x "$B/tests/bench_origin" ] && [ "$n" -le "${ORIGIN_CALLGRIND_MAX:-256}" ]; then
        ir=$(valgrind --tool=callgrind --toggle-collect=origin_find --callgrind-out-file=/dev/null \
            "$B/tests/bench_origin" "$D/step0" 1 2>&1 | sed -n 's/.*Collected : *//p')
        echo "  rules alone (callgrind, origin_find): $ir instructions${prev_ir:+, x$(echo "scale=2; $ir / $prev_ir" | bc) the size before}"
        prev_ir=$ir
    fi
    if [ -n "${MSPROBE_SRC:-}" ] && [ "$n" -le "${ORIGIN_MSPROBE_MAX:-64}" ]; then
        MSCOPY=$B/bench-data/msprobe_copy
        [ -d "$MSCOPY/python" ] || { mkdir -p "$MSCOPY" && cp -r "$MSPROBE_SRC/python" "$MSCOPY/"; }
        rm -rf "$B/bench-out/msovf" && mkdir -p "$B/bench-out/msovf"
        /usr/bin/time -f "%e %U %S %M" -o "$B/bench-out/msovf.time" env PYTHONHASHSEED=0 PYTHONPATH="$MSCOPY/python" \
            ${MSPROBE_PYTHON:-/usr/bin/python3} -m msprobe.msprobe overflow_check -i "$D/step0" -o "$B/bench-out/msovf" >/dev/null 2>&1
        set -- $(tail -1 "$B/bench-out/msovf.time")
        echo "  msProbe overflow_check $n ranks: seconds=$1 cpu=$(echo "$2 + $3" | bc) peak_rss_mb=$(($4 / 1024)) load $(cut -d' ' -f1 /proc/loadavg)"
        msref="msProbe overflow_check $1 s at $n ranks"
    fi
    first_n=${first_n:-$n}
done
[ -n "${MSPROBE_SRC:-}" ] || msref="skipped: MSPROBE_SRC unset"
if [ "$n" = 1024 ]; then
    bench_goal 2 "overflow at 1024 ranks, s by wall" "${wall_before:-}" "${wall_after:-}" "${msref:-}" "<= 1 s" \
        "$(bench_cmp "${wall_after:-}" le 1)"
else
    bench_goal 2 "overflow at $n ranks, s by wall" "${wall_before:-}" "${wall_after:-}" "${msref:-}" "<= 1 s at 1024 ranks" \
        "not measured (1024 ranks not run)"
fi
bench_goal 2 "overflow, highest peak RSS over the input, $first_n-$n ranks" "${rpi_before:-}" "${rpi_after:-}" - "<= 1" \
    "$(bench_cmp "${rpi_after:-}" le 1)"
bench_goal scaling "overflow (origin search), CPU-s/MB at $n ranks over $first_n" "$(bench_ratio "${first_before:-}" "${last_before:-}")" \
    "$(bench_ratio "${first_after:-}" "${last_after:-}")" - "<= ${BENCH_STRAIGHT:-1.5} (straight)" \
    "$(bench_straight "$(bench_ratio "${first_after:-}" "${last_after:-}")")"
