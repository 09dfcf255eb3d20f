#!/bin/sh
# limit: issue 27 ("performance at the limit") in one run: every figure of
# its four points and its scaling runs, before (PT_BIN_BEFORE, when set) and
# after (PT_BIN), beside msProbe (MSPROBE_SRC) and HTA (HTA_SRC) on the same
# files, each line with the load average; then one summary table: point,
# figure, before, after, reference, goal, met / not met, load.
#   point 1 and its scaling: mon_data2db.sh (monitor trees: data2db, info)
#   point 2 and its scaling: origin_scale.sh (overflow, the origin search)
#   point 3 and its scaling: compare_scale.sh (compare --csv)
#   point 4, the dumps' scaling and the small-input ratio: scaling.sh (data2db, info on dumps)
#   point 4 on traces and the traces' scaling: trace_scale.sh (trace, beside HTA)
# The sizes are 4x apart in every run.  Default: the issue's sizes (dumps 30 /
# 120 / 480 MB, monitor trees of 12 ranks 48 / 190 / 760 MB, 64 / 256 / 1024
# ranks, compare pairs of 8.5 / 32 / 125 MB, traces 16 / 65 / 262 / 1050 MB;
# long: msProbe and HTA on the smaller sizes, data made up to 1 GB).  QUICK=1:
# the two smallest of those sizes, best of 2 (435 s with msProbe and HTA at
# load 13, most of it making the data and the reference tools; dumps 34 / 134 MB, monitor
# trees 19 / 77 MB, 64 / 256 ranks, pairs of 8.5 / 32 MB, traces 16 / 65 MB;
# msProbe on the smaller but for dumps, HTA on both).  Each script's own
# size variable, set in the environment, wins over both (SCALING_SIZES,
# STEPS, ORIGIN_SIZES, COMPARE_LAYERS, TRACE_STEPS), as do REPEAT and their
# other settings.  Without MSPROBE_SRC / HTA_SRC the reference figures are
# skipped, each with a line saying so.  Exit 1 when a script fails or an
# output differs before and after.  The data is made under
# $PT_BUILD/bench-data and deleted at the end (LIMIT_KEEP=1 keeps it).
#   PT_BUILD=build PT_BIN_BEFORE=/tmp/before/probetop MSPROBE_SRC=<msProbe checkout> \
#       HTA_SRC=<HTA checkout> QUICK=1 sh tests/bench/limit.sh
set -u
B=${PT_BUILD:-build}
HERE=$(dirname "$0")
export PT_BUILD="$B"
export PT_BIN="${PT_BIN:-$B/probetop}"
[ -x "$PT_BIN" ] || { echo "limit: no probetop at $PT_BIN (build it, or set PT_BIN)"; exit 1; }
[ -x /usr/bin/time ] || { echo "limit: /usr/bin/time is missing (apt-get install time)"; exit 1; }
if [ "${QUICK:-0}" = 1 ]; then
    : "${SCALING_SIZES:=30 120}" "${STEPS:=16 64}" "${ORIGIN_SIZES:=64 256}" "${COMPARE_LAYERS:=12 48}" "${TRACE_STEPS:=39 156}"
    : "${REPEAT:=2}"
else
    : "${SCALING_SIZES:=30 120 480}" "${STEPS:=40 160 640}" "${ORIGIN_SIZES:=64 256 1024}" "${COMPARE_LAYERS:=12 48 192}"
    : "${TRACE_STEPS:=39 156 625 2500}" "${REPEAT:=3}"
fi
: "${REPS:=$REPEAT}" "${BENCH_REPS:=$REPEAT}"
export SCALING_SIZES STEPS ORIGIN_SIZES COMPARE_LAYERS TRACE_STEPS REPEAT REPS BENCH_REPS
export SCALING_KEEP="${LIMIT_KEEP:-0}" TRACE_KEEP="${LIMIT_KEEP:-0}"
OUT=$B/bench-out/limit
rm -rf "$OUT" && mkdir -p "$OUT"
export BENCH_SUMMARY="$OUT/summary.tsv"
: > "$BENCH_SUMMARY"
. "$HERE/bench_goal.sh"

echo "== issue 27 at the limit: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $( [ "${QUICK:-0}" = 1 ] && echo "QUICK sizes" || echo "the issue's sizes"), best of $REPEAT"
echo "after:  $PT_BIN"
echo "before: ${PT_BIN_BEFORE:-(PT_BIN_BEFORE unset: no before column)}"
[ -n "${MSPROBE_SRC:-}" ] && echo "msProbe: $MSPROBE_SRC" || echo "msProbe: skipped (MSPROBE_SRC unset): no msProbe figures beside ours"
[ -n "${HTA_SRC:-}" ] && echo "HTA: $HTA_SRC" || echo "HTA: skipped (HTA_SRC unset): no HTA figures beside ours"
status=0
start=$(date +%s)
for s in mon_data2db origin_scale compare_scale scaling trace_scale; do
    echo
    t0=$(date +%s)
    { sh "$HERE/$s.sh"; echo $? > "$OUT/$s.rc"; } 2>&1 | tee "$OUT/$s.log"
    rc=$(cat "$OUT/$s.rc")
    echo "limit: $s.sh took $(($(date +%s) - t0)) s wall, the data's generation and the reference tools included (load $(bench_load))"
    if [ "$rc" != 0 ]; then
        echo "limit: $s.sh FAILED (exit $rc)"
        bench_goal "$s" "$s.sh" - - - "runs" "FAILED (exit $rc)"
        status=1
    fi
    if grep -q 'DIFFER' "$OUT/$s.log"; then
        echo "limit: $s.sh: an output differs before and after"
        status=1
    fi
done
if [ "${LIMIT_KEEP:-0}" != 1 ]; then
    for s in $STEPS; do
        t=${MON_BENCH_DIR:-$B/bench-data/mon}/steps$s"r"${RANKS:-12}$([ "${MON_V2:-0}" = 1 ] && echo v2)
        rm -rf "$t" "$t.done"
    done
    for n in $ORIGIN_SIZES; do rm -rf "$B/bench-data/origin_scale/r$n"; done
    for l in $COMPARE_LAYERS; do rm -rf "$B/bench-data/cmpscale/L$l"; done
    rm -rf "$B/bench-data/msprobe_copy" "$B/bench-out/origin.before.json" "$B/bench-out/origin.after.json" "$B/bench-out/origin.time" \
        "$B/bench-out/msovf" "$B/bench-out/msovf.time"
    rm -rf "$B/bench-out/cmpscale"
    rmdir "$B/bench-data/mon" "$B/bench-data/origin_scale" "$B/bench-data/cmpscale" 2>/dev/null
fi

# by point (1-4, then the scaling runs and the traces' reference), each script's order kept
sort -s -t "$(printf '\t')" -k1,1 "$BENCH_SUMMARY" > "$OUT/sorted.tsv"
echo
echo "== issue 27: summary (load: the 1-minute load average when the figure was taken; wall figures at a load above $(nproc) count other processes too)"
awk -F '\t' -v OFS=' | ' '
    BEGIN { h = "point\tfigure\tbefore\tafter\treference\tgoal\tmet\tload"; n = 1; row[1] = h }
    NF == 8 { row[++n] = $0 }
    END {
        for (i = 1; i <= n; i++) { k = split(row[i], f, "\t"); for (j = 1; j <= k; j++) if (length(f[j]) > w[j]) w[j] = length(f[j]) }
        for (i = 1; i <= n; i++) {
            k = split(row[i], f, "\t"); line = ""
            for (j = 1; j <= k; j++) line = line (j > 1 ? " | " : "") sprintf("%-" w[j] "s", f[j])
            print line
            if (i == 1) { line = ""; for (j = 1; j <= k; j++) { d = ""; for (c = 0; c < w[j]; c++) d = d "-"; line = line (j > 1 ? "-|-" : "") d }; print line }
        }
        printf "%d figures: %d met, %d not met, %d not measured\n", n - 1, met, nm, nms
    }
    NF == 8 { if ($7 == "met") met++; else if ($7 == "not met") nm++; else nms++ }' "$OUT/sorted.tsv"
echo "limit: the whole run took $(($(date +%s) - start)) s wall; logs in $OUT"
exit $status
