#!/bin/sh
# scaling: `probetop data2db` and `probetop info` on generated dumps whose
# sizes are 4x apart (gen_dump.py's reference model, 48 layers, 5 micro
# batches, TP 2: 1 step of 2 ranks, 1 step of 8 ranks, 4 steps of 8 ranks,
# about 30 / 120 / 480 MB of dump.json), beside msProbe's own data2db on the
# same folders, so that the small-input ratio and the straight lines can be
# seen in one run.  Per size and binary, of REPEAT runs (default 3): the
# least wall seconds with that run's peak RSS, and the least CPU seconds
# (user + system, which other processes disturb less), each line with the
# load average; then msProbe's wall and CPU (one run) and the ratios
# msProbe / probetop by wall and by CPU.
#
#   PT_BUILD=build PT_BIN_BEFORE=/tmp/before/probetop MSPROBE_SRC=<msProbe checkout> \
#       sh tests/bench/scaling.sh
#
# PT_BIN_BEFORE (an older probetop): the same runs for it ("before"), and its
# info output must be the same bytes (but for the line of its own load time).  MSPROBE_SRC: msProbe's data2db up to
# SCALING_MSPROBE_MAX MB (default 480; on a loaded machine 120 keeps the run
# short).  SCALING_SIZES="30 120 480" chooses the sizes (30, 120, 480, 1920).
# SCALING_CANON=1 also compares the canonical text (tests/trenddb_canon.py) of
# the two binaries' databases.  With perf installed (and allowed), SCALING_PERF=1
# prints each binary's serial head and tail at every size: the CPU milliseconds
# of the main thread before the first worker ran and after the last one
# stopped (cpu-clock samples, so counted alike at any load), the fixed costs
# the two cores cannot share.  The data lives in $PT_BUILD/bench-data/scaling
# and is deleted at the end (SCALING_KEEP=1 keeps it).  Sizes 2 and 8 (2 and 12
# layers instead of 48, 2 ranks) are the quick ones (limit.sh QUICK=1).
# Each line has the peak RSS over the input; the end, the goal lines
# (bench_goal.sh): CPU-s/GB at the largest size over the smallest (a straight
# line) for data2db and info, data2db's GB/s at the largest size (issue 27
# point 4: >= 2 GB/s) and the ratio to msProbe at the smallest size it ran
# (the small-input ratio, 16x at 120 MB in the issue).
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
OLD=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
GEN_DUMP=$(dirname "$0")/../gen_dump.py
REPEAT=${REPEAT:-3}
SIZES=${SCALING_SIZES:-30 120 480}
MSMAX=${SCALING_MSPROBE_MAX:-480}
D=$B/bench-data/scaling
OUT=$B/bench-out/scaling
mkdir -p "$D" "$OUT"
[ -x /usr/bin/time ] || { echo "scaling: /usr/bin/time is missing (apt-get install time)"; exit 1; }

gen_args() {
    case $1 in
        2) echo "--steps 1 --ranks 2 --layers 2" ;;
        8) echo "--steps 1 --ranks 2 --layers 12" ;;
        30) echo "--steps 1 --ranks 2 --layers 48" ;;
        120) echo "--steps 1 --ranks 8 --layers 48" ;;
        480) echo "--steps 4 --ranks 8 --layers 48" ;;
        1920) echo "--steps 16 --ranks 8 --layers 48" ;;
        *) echo "scaling: size $1 is not one of 2 8 30 120 480 1920" >&2; exit 1 ;;
    esac
}
for S in $SIZES; do
    if [ ! -f "$D/s$S/.done" ]; then
        rm -rf "$D/s$S"
        $PY "$GEN_DUMP" --out "$D/s$S/dump" $(gen_args "$S") --micro-batches 5 --tp 2 --quiet || exit 1
        touch "$D/s$S/.done"
    fi
done
load() { cut -d' ' -f1 /proc/loadavg; }
. "$(dirname "$0")/bench_goal.sh"

# run BIN WHAT S: best of REPEAT; sets t (least wall) rss (that run's) cpu (least CPU)
run() {
    best=""
    i=0
    while [ $i -lt "$REPEAT" ]; do
        rm -rf "$OUT/db"
        if [ "$2" = data2db ]; then
            /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$1" data2db --data "$D/s$3/dump" --db "$OUT/db" >/dev/null 2>&1
        else
            /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$1" info "$D/s$3/dump" >"$OUT/info.txt" 2>&1
        fi
        read -r w u s m <<EOF
$(tail -1 "$OUT/time")
EOF
        c=$(echo "$u + $s" | bc)
        if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then best=$w; rss=$((m / 1024)); fi
        if [ $i = 0 ] || [ "$(echo "$c < $cpu" | bc)" = 1 ]; then cpu=$c; fi
        i=$((i + 1))
    done
    t=$best
}

# serial BIN ARGS...: the main thread's CPU ms before the first other thread
# ran and after the last one stopped (perf cpu-clock samples at 10 kHz)
serial() {
    perf record -q -o "$OUT/perf.data" -F 10000 -e cpu-clock "$@" >/dev/null 2>&1 || { echo "perf failed"; return; }
    perf script -i "$OUT/perf.data" -F tid,time 2>/dev/null | tr -d ':' | awk '
        NF == 2 { n++; tid[n] = $1; tm[n] = $2 + 0; if (n == 1) main = $1
                  if ($1 != main) { if (!f || $2 + 0 < f) f = $2 + 0; if ($2 + 0 > l) l = $2 + 0 } }
        END { if (!f) { printf "one thread, %.1f ms CPU", n / 10; exit }
              for (i = 1; i <= n; i++) if (tid[i] == main) { if (tm[i] < f) h++; if (tm[i] > l) t++ }
              printf "serial head %.1f ms, tail %.1f ms of %.0f ms CPU", h / 10, t / 10, n / 10 }'
    rm -f "$OUT/perf.data"
}

echo "== scaling of dumps: data2db and info, sizes 4x apart, best of $REPEAT (wall; CPU), $(nproc) cores"
for S in $SIZES; do
    mb=$(du -sb "$D/s$S/dump" | awk '{printf "%.0f", $1 / 1048576}')
    ms=""
    if [ -n "${MSPROBE_SRC:-}" ] && [ "$S" -le "$MSMAX" ]; then
        # from a copy of its python folder: msProbe refuses paths holding '+', its own too
        MSCOPY=$B/bench-data/msprobe_copy
        [ -d "$MSCOPY/python" ] || { mkdir -p "$MSCOPY" && cp -r "$MSPROBE_SRC/python" "$MSCOPY/"; }
        rm -rf "$OUT/ms"
        /usr/bin/time -f "%e %U %S %M" -o "$OUT/ms.time" env PYTHONHASHSEED=0 PYTHONPATH="$MSCOPY/python" \
            ${MSPROBE_PYTHON:-/usr/bin/python3} -m msprobe.msprobe data2db --data "$D/s$S/dump" --db "$OUT/ms" >/dev/null 2>&1
        read -r msw msu mss msm <<EOF
$(tail -1 "$OUT/ms.time")
EOF
        if [ -f "$OUT/ms/dump_data.trend.db" ]; then
            ms=$msw; mscpu=$(echo "$msu + $mss" | bc)
            printf "msProbe  data2db %4s MB: wall %7.2f s  CPU %7.2f s  peak RSS %5s MB  load %s\n" "$mb" "$ms" "$mscpu" "$((msm / 1024))" "$(load)"
        else
            echo "msProbe  data2db $mb MB: wrote no database (PYTHONPATH=$MSCOPY/python python3 -m msprobe.msprobe data2db)"
        fi
        rm -rf "$OUT/ms"
    fi
    for who in before after; do
        if [ $who = before ]; then [ -n "$OLD" ] || continue; bin=$OLD; else bin=$BIN; fi
        for what in data2db info; do
            run "$bin" $what "$S"
            [ $what = info ] && grep -v '^load time' "$OUT/info.txt" > "$OUT/info.$who.$S"   # its own timing aside
            cpgb=$(printf %.2f "$(echo "$cpu * 1024 / $mb" | bc -l)")
            line=$(printf "probetop %-7s %-6s %4s MB: wall %6.3f s  CPU %6.3f s  peak RSS %4s MB (%.2f x the input)  %s CPU-s/GB" \
                "$what" "$who" "$mb" "$t" "$cpu" "$rss" "$(echo "$rss / $mb" | bc -l)" "$cpgb")
            if [ $what = data2db ] && [ -n "$ms" ]; then
                x=$(awk -v a="$ms" -v b="$t" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
                line="$line  | msProbe/probetop: ${x}x wall, $(awk -v a="$mscpu" -v b="$cpu" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')x CPU"
                # the small-input ratio: the smallest size msProbe ran on
                eval "[ -n \"\${xms_$who:-}\" ] || { xms_$who=\$x; xms_mb=\$mb; xms_s=\$ms; }"
            fi
            eval "[ -n \"\${first_${who}_$what:-}\" ] || first_${who}_$what=\$cpgb"
            eval "last_${who}_$what=\$cpgb"
            [ $what = data2db ] && eval "peak_$who=\$rss"
            [ $what = data2db ] && eval "gbs_$who=\$(awk -v a=\"\$mb\" -v b=\"\$t\" 'BEGIN { if (b > 0) printf \"%.2f\", a / 1024 / b; else print \"-\" }')"
            echo "$line  load $(load)"
            if [ "${SCALING_PERF:-0}" = 1 ]; then
                if [ $what = data2db ]; then rm -rf "$OUT/db"; s=$(serial "$bin" data2db --data "$D/s$S/dump" --db "$OUT/db")
                else s=$(serial "$bin" info "$D/s$S/dump"); fi
                echo "    $what $who: $s"
            fi
        done
        if [ "${SCALING_CANON:-0}" = 1 ] && [ -n "$OLD" ]; then
            rm -rf "$OUT/db.$who" && "$bin" data2db --data "$D/s$S/dump" --db "$OUT/db.$who" >/dev/null 2>&1
            $PY "$(dirname "$0")/../trenddb_canon.py" "$OUT/db.$who/dump_data.trend.db" > "$OUT/canon.$who"
        fi
    done
    if [ -n "$OLD" ]; then
        if cmp -s "$OUT/info.before.$S" "$OUT/info.after.$S"; then echo "  info $mb MB: the same bytes before and after"
        else echo "  info $mb MB: DIFFERS before and after"; fi
        if [ "${SCALING_CANON:-0}" = 1 ]; then
            if cmp -s "$OUT/canon.before" "$OUT/canon.after"; then echo "  data2db $mb MB: the same canonical text before and after"
            else echo "  data2db $mb MB: canonical text DIFFERS before and after"; fi
            rm -rf "$OUT/db.before" "$OUT/db.after" "$OUT/canon.before" "$OUT/canon.after"
        fi
    fi
done
first_mb=$(du -sb "$D/s$(echo $SIZES | cut -d' ' -f1)/dump" | awk '{printf "%.0f", $1 / 1048576}')
for what in data2db info; do
    eval "rb=\$(bench_ratio \"\${first_before_$what:-}\" \"\${last_before_$what:-}\")"
    eval "ra=\$(bench_ratio \"\${first_after_$what:-}\" \"\${last_after_$what:-}\")"
    bench_goal scaling "$what on dumps, CPU-s/GB at $mb MB over $first_mb MB" "$rb" "$ra" - \
        "<= ${BENCH_STRAIGHT:-1.5} (straight)" "$(bench_straight "$ra")"
done
bench_goal dumps "data2db on dumps at $mb MB, peak RSS (MB)" "${peak_before:-}" "${peak_after:-}" - \
    "<= 256 MB (flat; point 1's bound)" "$(bench_cmp "${peak_after:-}" le 256)"
bench_goal 4 "data2db on dumps at $mb MB, GB/s by wall" "${gbs_before:-}" "${gbs_after:-}" - ">= 2 GB/s" \
    "$(bench_cmp "${gbs_after:-}" ge 2)"
if [ -n "${xms_s:-}" ]; then
    bench_goal 4 "data2db on dumps at $xms_mb MB, x msProbe by wall" "${xms_before:+${xms_before}x}" "${xms_after:+${xms_after}x}" \
        "msProbe ${xms_s} s" "> 16x (the issue's 16x at 120 MB)" "$(bench_cmp "${xms_after:-}" ge 16)"
else
    bench_goal 4 "data2db on dumps, x msProbe (the small-input ratio)" - - "skipped: MSPROBE_SRC unset" "> 16x" "not measured"
fi
rm -rf "$OUT"
[ "${SCALING_KEEP:-0}" = 1 ] || rm -rf "$D"
