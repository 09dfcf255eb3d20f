#!/bin/sh
# Monitor trees through data2db and info, at sizes 4x apart: wall time,
# CPU (user + system), peak RSS, s/GB and the ratio to msProbe's data2db,
# best of REPS runs, with the load average beside each line (the machine
# may be shared).  The same for a second build (PT_BIN_BEFORE) gives the
# before/after table; both outputs must print the same canonical text
# (tests/trenddb_canon.py) and the same rank summary rows.
#   PT_BIN=build/probetop PT_BIN_BEFORE=/tmp/old/probetop sh tests/bench/mon_data2db.sh
# Trees: tests/gen_dump.py --monitor --ranks 12 --layers 4 --micro-batches 2
# with STEPS (default "40 160 640": about 48, 190 and 760 MB), made once
# under MON_BENCH_DIR (default $PT_BUILD/bench-data/mon).  12 ranks: the
# rank summary is made.  MSPROBE_SRC=<msProbe checkout> times msProbe's
# data2db on the smallest tree; else MS_WHAT's reference figure, measured
# once, stands in.  RANKS (default 12) and MON_V2=1 (msProbe's v2 layout)
# vary the trees: 8 ranks make no rank summary, 12 and 16 do.  Read the
# scaling down a column: cpu_s/GB should stay level across the sizes (a
# straight line) and peak_MB stay flat (peak/input fall) for data2db; x_msProbe
# is msProbe's s/GB over our wall s/GB, on a shared machine a floor.
# STEPS="10 40 160" gives 12, 48 and 190 MB trees quickly.  The end: the
# goal lines of issue 27 point 1 (bench_goal.sh): data2db <= 2 s/GB and
# info <= 1.5 s/GB by wall at the largest tree, data2db's peak <= 256 MB at
# every size, >= 50x msProbe on the tree it ran on, and the straight lines
# (CPU-s/GB at the largest tree over the smallest) of data2db and info.
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
BEFORE=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
MSPY=${MSPROBE_PYTHON:-/usr/bin/python3}   # msProbe's packages: Debian's python (numpy, pandas)
REPS=${REPS:-3}
STEPS=${STEPS:-40 160 640}
RANKS=${RANKS:-12}
V2=${MON_V2:-0}
V2ARG=""; [ "$V2" = 1 ] && V2ARG=--monitor-v2
TAG=r$RANKS$([ "$V2" = 1 ] && echo v2)
D=${MON_BENCH_DIR:-$B/bench-data/mon}
HERE=$(dirname "$0")
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
mkdir -p "$D"
D=$(cd "$D" && pwd)   # msProbe runs from a folder of its own
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
. "$HERE/bench_goal.sh"
echo "== monitor trees ($RANKS ranks$([ "$V2" = 1 ] && echo ", v2")): data2db and info ($(nproc) cores, load average $(load), best of $REPS)"

# best of REPS: "wall user sys rss_kb" of the fastest run of "$@"
best() {
    b=""
    i=0
    while [ $i -lt "$REPS" ]; do
        $TIME -f '%e %U %S %M' -o "$T/t" "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
        r=$(tail -1 "$T/t")
        if [ -z "$b" ] || [ "$(echo "$r $b" | awk '{print ($1 < $5)}')" = 1 ]; then b=$r; fi
        i=$((i + 1))
    done
    echo "$b"
}

MS_SPG=355   # msProbe s/GB, measured below when MSPROBE_SRC is set
MS_MEASURED=""
MS_WHAT="msProbe 88.5 s for 210 MB on this machine kind (reference)"
first=$(echo $STEPS | cut -d' ' -f1)
for s in $STEPS; do
    tree=$D/steps$s$TAG
    if [ ! -f "$tree.done" ]; then   # beside the tree, not in it: a tree cut short is made again
        rm -rf "$tree"
        "$PY" "$HERE/../gen_dump.py" --monitor $V2ARG --steps "$s" --ranks "$RANKS" --layers 4 --micro-batches 2 --out "$tree" \
            --quiet >/dev/null 2>&1 || { echo "gen_dump.py failed for $tree"; exit 1; }
        touch "$tree.done"
    fi
done
if [ -n "${MSPROBE_SRC:-}" ]; then
    # msProbe's path check refuses a '+' in its own path: a copy without
    cp -r "$MSPROBE_SRC/python" "$T/msprobe_py"
    tree=$D/steps$first$TAG
    mb=$(du -smL "$tree" | cut -f1)
    rm -rf "$T/ms"
    r=$(cd "$T" && PYTHONHASHSEED=0 PYTHONPATH="$T/msprobe_py" $TIME -f '%e %U %S %M' -o "$T/ms.t" \
        "$MSPY" -m msprobe.msprobe data2db --data "$tree" --db "$T/ms" >/dev/null 2>&1; tail -1 "$T/ms.t")
    [ -f "$T/ms/monitor_data.trend.db" ] || { echo "msProbe's data2db wrote nothing (MSPROBE_PYTHON=$MSPY)"; exit 1; }
    MS_SPG=$(echo "$r $mb" | awk '{printf "%.0f", $1 / ($5 / 1024)}')
    MS_WHAT="msProbe measured: $(echo "$r" | awk '{printf "%s s wall, %.2f s CPU, peak %.0f MB", $1, $2 + $3, $4 / 1024}') for $mb MB (load $(load))"
    MS_MEASURED="msProbe $MS_SPG s/GB at $mb MB, peak $(echo "$r" | awk '{printf "%.0f", $4 / 1024}') MB"
    if [ -f "$T/ms/monitor_data.trend.db" ]; then
        "$BIN" data2db --data "$tree" --db "$T/pt" >/dev/null 2>&1
        "$PY" "$HERE/../trenddb_canon.py" "$T/ms/monitor_data.trend.db" > "$T/ms.canon"
        "$PY" "$HERE/../trenddb_canon.py" "$T/pt/monitor_data.trend.db" > "$T/pt.canon"
        if cmp -s "$T/ms.canon" "$T/pt.canon"; then MS_WHAT="$MS_WHAT, same canonical text"
        else MS_WHAT="$MS_WHAT, canonical text DIFFERENT"; fi
    fi
fi
echo "$MS_WHAT: $MS_SPG s/GB"
printf '%-7s %-8s %-8s %7s %8s %8s %9s %8s %8s %9s  %s\n' build command MB wall_s cpu_s s/GB peak_MB x_msProbe cpu_s/GB peak/input load
for s in $STEPS; do
    tree=$D/steps$s$TAG
    mb=$(du -smL "$tree" | cut -f1)
    for side in before after; do
        if [ $side = before ]; then bin=$BEFORE; else bin=$BIN; fi
        [ -n "$bin" ] || continue
        for cmd in data2db info; do
            if [ $cmd = data2db ]; then
                rm -rf "$T/$side"
                r=$(best "$bin" data2db --data "$tree" --db "$T/$side") || exit 1
            else
                r=$(best "$bin" info "$tree") || exit 1
            fi
            v=$(echo "$side $cmd $mb $r $MS_SPG $(load | cut -d' ' -f1)" | awk '{
                gb = $3 / 1024; cpu = $5 + $6; x = ($4 > 0) ? sprintf("%.0f", $8 / ($4 / gb)) : "inf"
                printf "%-7s %-8s %-8d %7.2f %8.2f %8.2f %9.0f %8s %8.2f %9.2f  %s\n", $1, $2, $3, $4, cpu, $4 / gb,
                       $7 / 1024, x, cpu / gb, $7 / 1024 / $3, $9
                printf "%.2f %.2f %.0f %s\n", cpu / gb, $4 / gb, $7 / 1024, x }')
            echo "$v" | sed -n 1p
            # for the goal lines: CPU-s/GB at the first and last tree, wall s/GB at the last, the
            # highest peak, the ratio to msProbe on the first tree (the one msProbe ran on)
            set -- $(echo "$v" | sed -n 2p)
            eval "[ -n \"\${first_${side}_$cmd:-}\" ] || first_${side}_$cmd=$1"
            # (data2db's ratio only: info's, set here too, had stood in its place)
            [ $cmd != data2db ] || [ -n "$(eval echo "\${x_$side:-}")" ] || eval "x_$side=$4"
            eval "last_${side}_$cmd=$1; wall_${side}_$cmd=$2"
            if [ $cmd = data2db ]; then
                eval "[ \"\${peak_$side:-0}\" -ge $3 ] || peak_$side=$3"
            fi
        done
    done
    if [ -n "$BEFORE" ]; then
        for side in before after; do
            db=$T/$side/monitor_data.trend.db
            "$PY" "$HERE/../trenddb_canon.py" "$db" > "$T/$side.canon"
            sqlite3 "$db" 'SELECT * FROM probetop_rank_summary ORDER BY 1, 2, 3, 4, 5' > "$T/$side.summary" 2>/dev/null
        done
        if cmp -s "$T/before.canon" "$T/after.canon" && cmp -s "$T/before.summary" "$T/after.summary"; then
            echo "        outputs: same canonical text ($(wc -l < "$T/after.canon") lines) and rank summary ($(wc -l < "$T/after.summary") rows)"
        else
            echo "        outputs: DIFFERENT"
        fi
    fi
done
first_mb=$(du -smL "$D/steps$first$TAG" | cut -f1)
ref=${MS_MEASURED:-"skipped: MSPROBE_SRC unset (msProbe took $MS_SPG s/GB once)"}
bench_goal 1 "data2db on monitor trees at $mb MB, s/GB by wall" "${wall_before_data2db:-}" "${wall_after_data2db:-}" "$ref" \
    "<= 2 s/GB" "$(bench_cmp "${wall_after_data2db:-}" le 2)"
bench_goal 1 "data2db on monitor trees, highest peak RSS (MB) of $first_mb-$mb MB" "${peak_before:-}" "${peak_after:-}" "$ref" \
    "<= 256 MB (flat)" "$(bench_cmp "${peak_after:-}" le 256)"
if [ -n "$MS_MEASURED" ]; then
    bench_goal 1 "data2db on monitor trees at $first_mb MB, x msProbe by wall" "${x_before:+${x_before}x}" "${x_after:+${x_after}x}" \
        "$ref" ">= 50x" "$(bench_cmp "${x_after:-}" ge 50)"
else
    bench_goal 1 "data2db on monitor trees, x msProbe" - - "$ref" ">= 50x" "not measured"
fi
bench_goal 1 "info on monitor trees at $mb MB, s/GB by wall" "${wall_before_info:-}" "${wall_after_info:-}" - \
    "<= 1.5 s/GB" "$(bench_cmp "${wall_after_info:-}" le 1.5)"
for cmd in data2db info; do
    eval "rb=\$(bench_ratio \"\${first_before_$cmd:-}\" \"\${last_before_$cmd:-}\")"
    eval "ra=\$(bench_ratio \"\${first_after_$cmd:-}\" \"\${last_after_$cmd:-}\")"
    bench_goal scaling "$cmd on monitor trees, CPU-s/GB at $mb MB over $first_mb MB" "$rb" "$ra" - \
        "<= ${BENCH_STRAIGHT:-1.5} (straight)" "$(bench_straight "$ra")"
done
