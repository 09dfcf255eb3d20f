#!/bin/sh
# compare_scale: `probetop compare P B --csv OUT` on generated pairs whose
# sizes are 4x apart (gen_dump.py --layers 12, 48, 192: one rank pair of
# about 8, 32 and 126 MB, the problem another seed with one drifted MLP),
# so that time and memory can be seen growing in a straight line with the
# input.  Per size, of REPEAT runs (default 3; the machine is shared, so the
# load average is printed with each): the least wall seconds with that
# run's peak RSS, and the least CPU seconds (user + system, which other
# processes disturb less); then CPU and RSS per MB of input and the growth
# against the size before.
#
# With PT_OLD_BIN=<an older probetop> the same runs for it too ("before"),
# and the two csv files of every size must be the same bytes (cmp).
#   PT_BUILD=build PT_OLD_BIN=/tmp/old sh tests/bench/compare_scale.sh
# COMPARE_LAYERS="12 48 192" chooses the sizes.  With BENCH_CALLGRIND=1 also
# the instructions of the whole command (valgrind --tool=callgrind, threads
# included: repeatable on a shared machine) up to COMPARE_CALLGRIND_MAX
# layers (default 48).  With MSPROBE_SRC set, msProbe's own compare on the
# same pair (tests/oracle/msprobe_notorch.py) up to COMPARE_MSPROBE_MAX
# layers (default 12; run from a copy of $MSPROBE_SRC/python in the build
# folder, as msProbe refuses paths holding '+'; MSPROBE_PYTHON, default /usr/bin/python3),
# run first so that each of our lines at that size carries the ratio.
# PT_BIN_BEFORE is a second name for PT_OLD_BIN.  The end: the goal lines of
# issue 27 point 3 (bench_goal.sh): peak RSS <= 1x the pair at the largest
# size, the straight line (CPU-s/MB at the largest pair over the smallest),
# and the ratio to msProbe's compare at the largest size it ran (43-50x in
# the issue).
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
OLD=${PT_OLD_BIN:-${PT_BIN_BEFORE:-}}
PY=${PYTHON:-python3}
GEN_DUMP=$(dirname "$0")/../gen_dump.py
REPEAT=${REPEAT:-3}
LAYERS=${COMPARE_LAYERS:-12 48 192}
D=$B/bench-data/cmpscale
OUT=$B/bench-out/cmpscale
mkdir -p "$D" "$OUT"
[ -x /usr/bin/time ] || { echo "compare_scale: /usr/bin/time is missing (apt-get install time)"; exit 1; }
. "$(dirname "$0")/bench_goal.sh"

for L in $LAYERS; do
    if [ ! -f "$D/L$L/.done" ]; then
        rm -rf "$D/L$L"
        G="--steps 1 --ranks 1 --layers $L --micro-batches 5 --level mix --quiet"
        $PY "$GEN_DUMP" --out "$D/L$L/b" $G --seed 1 || exit 1
        $PY "$GEN_DUMP" --out "$D/L$L/p" $G --seed 2 --drift 1.5:layers.3.mlp || exit 1
        touch "$D/L$L/.done"
    fi
done

# run WHO BIN L: best of REPEAT; sets t (wall) rss (of that run) cpu (least)
run() {
    best=""
    i=0
    while [ $i -lt "$REPEAT" ]; do
        /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$2" compare "$D/L$3/p/step0/rank0" "$D/L$3/b/step0/rank0" \
            --csv "$OUT/$1.L$3.csv" >/dev/null 2>&1
        read -r w u s m <<EOF
$(tail -1 "$OUT/time")
EOF
        c=$(echo "$u + $s" | bc)
        if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then best=$w; rss=$(echo "scale=2; $m / 1024" | bc); fi   # MB to 0.01 (whole MB rounded 10.2 down to 10)
        if [ $i = 0 ] || [ "$(echo "$c < $cpu" | bc)" = 1 ]; then cpu=$c; fi
        i=$((i + 1))
    done
    t=$best
}

echo "== compare scaling: one pair per size, sizes 4x apart, best of $REPEAT (wall; CPU), $(nproc) cores"
if [ -n "${MSPROBE_SRC:-}" ]; then
    MSCOPY=$B/bench-data/msprobe_copy
    [ -d "$MSCOPY/python" ] || { mkdir -p "$MSCOPY" && cp -r "$MSPROBE_SRC/python" "$MSCOPY/"; }
    for L in $LAYERS; do
        [ "$L" -le "${COMPARE_MSPROBE_MAX:-12}" ] || continue
        rm -rf "$OUT/ms" && mkdir -p "$OUT/ms"
        /usr/bin/time -f "%e %U %S %M" -o "$OUT/ms.time" env PYTHONHASHSEED=0 MSPROBE_SRC="$MSCOPY" \
            ${MSPROBE_PYTHON:-/usr/bin/python3} "$(dirname "$0")/../oracle/msprobe_notorch.py" compare -tp "$D/L$L/p/step0/rank0/dump.json" \
            -gp "$D/L$L/b/step0/rank0/dump.json" -o "$OUT/ms" >/dev/null 2>&1
        set -- $(tail -1 "$OUT/ms.time")
        echo "msProbe compare --layers $L: wall $1 s  CPU $(echo "$2 + $3" | bc) s  peak RSS $(($4 / 1024)) MB  load $(cut -d' ' -f1 /proc/loadavg)"
        eval "ms_L$L=$1"
    done
    rm -rf "$OUT/ms"
fi
for who in old new; do
    if [ $who = old ]; then [ -n "$OLD" ] || continue; bin=$OLD; else bin=$BIN; fi
    prev_mb=""; prev_cpu=""; prev_rss=""
    for L in $LAYERS; do
        mb=$(du -sb "$D/L$L/p/step0/rank0" "$D/L$L/b/step0/rank0" | awk '{s += $1} END {printf "%.1f", s / 1048576}')
        run $who "$bin" "$L"
        line=$(printf "compare %-3s --layers %-3s pair %4s MB: wall %6.2f s  CPU %6.2f s  peak RSS %6.2f MB (%.2f x the pair)  CPU %.4f s/MB" \
            "$who" "$L" "$mb" "$t" "$cpu" "$rss" "$(echo "$rss / $mb" | bc -l)" "$(echo "$cpu / $mb" | bc -l)")
        if [ -n "$prev_mb" ]; then
            line="$line  x$(printf %.2f "$(echo "$mb / $prev_mb" | bc -l)") input: CPU x$(printf %.2f "$(echo "$cpu / $prev_cpu" | bc -l)"), RSS x$(printf %.2f "$(echo "$rss / $prev_rss" | bc -l)")"
        fi
        eval "ms=\${ms_L$L:-}"
        if [ -n "$ms" ]; then
            x=$(awk -v a="$ms" -v b="$t" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
            line="$line  | msProbe $ms s: ${x}x wall"
            eval "x_$who=$x; xL=$L; xms=$ms"
        fi
        echo "$line  load $(cut -d' ' -f1 /proc/loadavg)"
        prev_mb=$mb; prev_cpu=$cpu; prev_rss=$rss
        cpmb=$(echo "$cpu / $mb" | bc -l)
        eval "[ -n \"\${first_$who:-}\" ] || { first_$who=$cpmb; first_L=$L; }"
        eval "last_$who=$cpmb; rpp_$who=$(printf %.2f "$(echo "$rss / $mb" | bc -l)")"
        if [ "${BENCH_CALLGRIND:-0}" = 1 ] && [ "$L" -le "${COMPARE_CALLGRIND_MAX:-48}" ]; then
            ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" compare "$D/L$L/p/step0/rank0" \
                "$D/L$L/b/step0/rank0" --csv "$OUT/cg.csv" 2>&1 >/dev/null | sed -n 's/.*Collected : *//p')
            echo "  compare $who --layers $L (callgrind, whole command): $ir instructions, $(echo "$ir / $mb / 1000000" | bc) M per MB"
        fi
    done
done
if [ -n "$OLD" ]; then
    for L in $LAYERS; do
        if cmp -s "$OUT/old.L$L.csv" "$OUT/new.L$L.csv"; then
            echo "compare --layers $L: csv identical to the old binary's ($(wc -c < "$OUT/new.L$L.csv") bytes)"
        else
            echo "compare --layers $L: csv DIFFERS from the old binary's"
        fi
    done
fi
bench_goal 3 "compare --csv at --layers $L, peak RSS over the pair" "${rpp_old:-}" "${rpp_new:-}" - "<= 1" \
    "$(bench_cmp "${rpp_new:-}" le 1)"
bench_goal scaling "compare --csv, CPU-s/MB at --layers $L over $first_L" "$(bench_ratio "${first_old:-}" "${last_old:-}")" \
    "$(bench_ratio "${first_new:-}" "${last_new:-}")" - "<= ${BENCH_STRAIGHT:-1.5} (straight)" \
    "$(bench_straight "$(bench_ratio "${first_new:-}" "${last_new:-}")")"
if [ -n "${xms:-}" ]; then
    bench_goal 3 "compare --csv at --layers $xL, x msProbe compare by wall" "${x_old:+${x_old}x}" "${x_new:+${x_new}x}" \
        "msProbe $xms s" ">= 43x (the issue's 43-50x)" "$(bench_cmp "${x_new:-}" ge 43)"
else
    bench_goal 3 "compare --csv, x msProbe compare" - - "skipped: MSPROBE_SRC unset or no size <= COMPARE_MSPROBE_MAX" \
        ">= 43x" "not measured"
fi
rm -f "$OUT"/*.csv
