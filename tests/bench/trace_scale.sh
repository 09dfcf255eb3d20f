#!/bin/sh
# trace_scale: `probetop trace` on generated traces of 8 Megatron-shaped
# ranks whose sizes are 4x apart (tests/gen_trace.py --ranks 8 --micro 8
# --steps N, about 0.42 MB a step: TRACE_STEPS, default "39 156 625 2500",
# about 16 / 65 / 262 / 1050 MB of plain JSON), so that the time can be seen
# growing in a straight line with the input, beside HolisticTraceAnalysis's
# same tables (tests/oracle/hta_tables.py: kernel types, top kernels, idle)
# on the same folders when HTA_SRC=<HTA checkout> is set, up to
# TRACE_HTA_MAX MB (default 70; HTA takes minutes and gigabytes above).
# Per size and binary (PT_BIN, and PT_BIN_BEFORE when set), best of REPEAT
# runs (default 3) by wall time with that run's CPU seconds and peak RSS:
# every table (--format json, the figure beside HTA) and the breakdown alone
# (--format csv, the parse rate in MB/s), CPU-s/MB (the mean of as many
# runs as take about a second: one run of the smallest size is two hundredths
# of /usr/bin/time's grain) and the load average.
# With PT_BIN_BEFORE both binaries' json must be the same bytes.  The end:
# the goal lines (bench_goal.sh): the parse rate at the largest size
# (issue 27 point 4: >= 2 GB/s; 1.3-1.5 GB/s then), the ratio to HTA at the
# largest size it ran (33-81x in the issue), and the straight line (CPU-s/MB
# at the largest size over the smallest).  The traces live in
# $PT_BUILD/bench-data/trace_scale and are deleted at the end
# (TRACE_KEEP=1 keeps them).
#   PT_BUILD=build PT_BIN_BEFORE=/tmp/old/probetop HTA_SRC=<HTA checkout> sh tests/bench/trace_scale.sh
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
OLD=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
HERE=$(dirname "$0")
REPEAT=${REPEAT:-3}
STEPS=${TRACE_STEPS:-39 156 625 2500}
HTAMAX=${TRACE_HTA_MAX:-70}
D=$B/bench-data/trace_scale
OUT=$B/bench-out/trace_scale
mkdir -p "$D" "$OUT"
[ -x /usr/bin/time ] || { echo "trace_scale: /usr/bin/time is missing (apt-get install time)"; exit 1; }
. "$HERE/bench_goal.sh"

for s in $STEPS; do
    if [ ! -f "$D/s$s/.done" ]; then
        rm -rf "$D/s$s"
        $PY "$HERE/../gen_trace.py" "$D/s$s/trace" --ranks 8 --steps "$s" --micro 8 >/dev/null || exit 1
        touch "$D/s$s/.done"
    fi
done

# best BIN ARGS...: of REPEAT runs, "wall cpu rss_mb" of the fastest
best() {
    b=""
    i=0
    while [ $i -lt "$REPEAT" ]; do
        /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$@" > "$OUT/out" 2>/dev/null
        r=$(tail -1 "$OUT/time" | awk '{printf "%s %.2f %.0f", $1, $2 + $3, $4 / 1024}')
        if [ -z "$b" ] || [ "$(echo "$r $b" | awk '{print ($1 < $4)}')" = 1 ]; then b=$r; cp "$OUT/out" "$OUT/best"; fi
        i=$((i + 1))
    done
    echo "$b"
}

# cpu_per_run CPU BIN ARGS...: CPU seconds of one run, as the mean of enough
# runs timed together to take about a second (CPU: one run's, from best);
# /usr/bin/time prints hundredths, and a 16 MB trace takes two of them
cpu_per_run() {
    n=$(echo "$1" | awk '{n = $1 > 0 ? int(1 / $1 + 0.999) : 100; if (n > 100) n = 100; if (n < 1) n = 1; print n}')
    shift
    if [ "$n" -le 1 ]; then /usr/bin/time -f "%U %S" -o "$OUT/time" "$@" > /dev/null 2>&1
    else /usr/bin/time -f "%U %S" -o "$OUT/time" sh -c 'n=$1; shift; i=0; while [ $i -lt "$n" ]; do "$@"; i=$((i + 1)); done' \
        sh "$n" "$@" > /dev/null 2>&1; fi
    tail -1 "$OUT/time" | awk -v n="$n" '{printf "%.5f", ($1 + $2) / n}'
}

echo "== trace scaling: 8 ranks, sizes 4x apart, best of $REPEAT by wall (CPU, peak RSS of that run), $(nproc) cores"
[ -n "${HTA_SRC:-}" ] || echo "HTA: skipped (set HTA_SRC to an HTA checkout to time its tables beside ours)"
first_mb=""
for s in $STEPS; do
    dir=$D/s$s/trace
    mb=$(cat "$dir"/*.json | wc -c | awk '{printf "%.1f", $1 / 1048576}')
    first_mb=${first_mb:-$mb}
    hta=""
    if [ -n "${HTA_SRC:-}" ] && [ "$(echo "$mb <= $HTAMAX" | bc)" = 1 ]; then
        set -- $(REPEAT=1 best env PYTHONPATH="$HTA_SRC" /usr/bin/python3 "$HERE/../oracle/hta_tables.py" "$dir")
        if [ -s "$OUT/best" ]; then
            hta=$1
            echo "HTA tables (hta_tables.py)    $mb MB: wall $1 s  CPU $2 s  peak RSS $3 MB  load $(bench_load)"
            htaref="HTA $1 s at $mb MB"
        else
            echo "HTA tables $mb MB: no output (PYTHONPATH=$HTA_SRC python3 tests/oracle/hta_tables.py)"
        fi
    fi
    for who in before after; do
        if [ $who = before ]; then [ -n "$OLD" ] || continue; bin=$OLD; else bin=$BIN; fi
        set -- $(best "$bin" trace "$dir" --format json)
        cp "$OUT/best" "$OUT/json.$who"
        cpmb=$(echo "$(cpu_per_run "$2" "$bin" trace "$dir" --format json) $mb" | awk '{printf "%.5f", $1 / $2}')
        line=$(printf "probetop trace --format json %-6s %6s MB: wall %6.2f s  CPU %6.2f s  peak RSS %4s MB  %s CPU-s/MB" \
            "$who" "$mb" "$1" "$2" "$3" "$cpmb")
        if [ -n "$hta" ]; then
            x=$(awk -v a="$hta" -v b="$1" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
            line="$line  | HTA/probetop ${x}x wall"
            eval "x_$who=$x; xmb=$mb"
        fi
        echo "$line  load $(bench_load)"
        eval "[ -n \"\${first_$who:-}\" ] || first_$who=$cpmb"
        eval "last_$who=$cpmb"
        set -- $(best "$bin" trace "$dir" --format csv)
        rate=$(echo "$1 $mb" | awk '{ if ($1 > 0) printf "%.0f", $2 / $1; else print "-" }')
        printf "probetop trace --format csv  %-6s %6s MB: wall %6.2f s  CPU %6.2f s  peak RSS %4s MB  %s MB/s  load %s\n" \
            "$who" "$mb" "$1" "$2" "$3" "$rate" "$(bench_load)"
        eval "rate_$who=$rate"
    done
    if [ -n "$OLD" ]; then
        if cmp -s "$OUT/json.before" "$OUT/json.after"; then echo "  trace json $mb MB: the same bytes before and after"
        else echo "  trace json $mb MB: DIFFERS before and after"; fi
    fi
done
gbs() { [ "${1:--}" = - ] && echo - || echo "$1" | awk '{printf "%.2f", $1 / 1024}'; }
bench_goal 4 "trace --format csv at $mb MB, GB/s by wall" "$(gbs "${rate_before:-}")" "$(gbs "${rate_after:-}")" - ">= 2 GB/s" \
    "$(bench_cmp "$(gbs "${rate_after:-}")" ge 2)"
if [ -n "${xmb:-}" ]; then
    bench_goal trace "trace --format json at $xmb MB, x HTA's tables by wall" "${x_before:+${x_before}x}" "${x_after:+${x_after}x}" \
        "$htaref" ">= 33x (the issue's 33-81x)" "$(bench_cmp "${x_after:-}" ge 33)"
else
    bench_goal trace "trace --format json, x HTA's tables" - - "skipped: HTA_SRC unset or no size <= TRACE_HTA_MAX" ">= 33x" \
        "not measured"
fi
bench_goal scaling "trace --format json, CPU-s/MB at $mb MB over $first_mb MB" "$(bench_ratio "${first_before:-}" "${last_before:-}")" \
    "$(bench_ratio "${first_after:-}" "${last_after:-}")" - "<= ${BENCH_STRAIGHT:-1.5} (straight)" \
    "$(bench_straight "$(bench_ratio "${first_after:-}" "${last_after:-}")")"
rm -rf "$OUT"
[ "${TRACE_KEEP:-0}" = 1 ] || rm -rf "$D"
