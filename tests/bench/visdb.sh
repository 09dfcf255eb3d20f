#!/bin/sh
# visdb: `probetop compare P B --vis-db FILE` against msProbe's
# `graph_visualize -tp P -gp B -o OUT` on the reference data of the
# compare figures: one step of 8 rank pairs of about 15 MB a side
# (gen_dump.py --ranks 8 --layers 48 --micro-batches 5 --tp 2, the problem
# run with a NaN planted in rank 5's layer 20), both writing the .vis.db.
# Prints both times side by side and the ratio (the target: 30x).
#
# probetop: best of REPEAT runs (default 3) by wall time, with that run's
# CPU seconds and peak RSS and the load average (the machine is shared).
# msProbe: run once when MSPROBE_SRC is set (about two minutes), and then
# the two databases must be equal row for row (tests/oracle/visdb_canon.py);
# without it its time measured here once, 127 s, is printed.
#   PT_BUILD=build MSPROBE_SRC=/path/to/msprobe sh tests/bench/visdb.sh
# VISDB_OC=1 adds -oc / --overflow to both.
# VISDB_THREADS=1 (needs perf) adds one run's CPU seconds per thread: on a
# loaded machine the wall time says little, and with the total CPU and the
# busiest thread they bound the time on an idle machine of $(nproc) cores.
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
PY=${PYTHON:-python3}
REPEAT=${REPEAT:-3}
HERE=$(dirname "$0")
D=$B/bench-data/visdb8
OUT=$B/bench-out/visdb
MS_REF=127
mkdir -p "$D" "$OUT"
[ -x /usr/bin/time ] || { echo "visdb: /usr/bin/time is missing (apt-get install time)"; exit 1; }
if [ ! -f "$D/.done" ]; then
    rm -rf "$D" && mkdir -p "$D"
    G="--steps 1 --ranks 8 --layers 48 --micro-batches 5 --tp 2 --quiet"
    $PY "$HERE/../gen_dump.py" --out "$D/bench" $G || exit 1
    $PY "$HERE/../gen_dump.py" --out "$D/npu" $G --nan 0:5:layers.20.mlp || exit 1
    touch "$D/.done"
fi
OC=""; MOC=""
[ "${VISDB_OC:-0}" = 1 ] && { OC="--overflow"; MOC="-oc"; }
P=$D/npu/step0; BB=$D/bench/step0
sizes=$(du -sm "$P"/rank* | awk '{print $1}' | sort -n | tr '\n' ' ')
echo "== .vis.db of 8 rank pairs: problem rank folders $sizes MB ($(du -sh "$P" | cut -f1) a side), $(nproc) cores"
best=""; i=0
while [ $i -lt "$REPEAT" ]; do
    rm -f "$OUT/ours.vis.db"
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$BIN" compare "$P" "$BB" --vis-db "$OUT/ours.vis.db" $OC \
        >/dev/null 2>"$OUT/err"
    [ -f "$OUT/ours.vis.db" ] || { echo "visdb: probetop wrote no database:"; cat "$OUT/err"; exit 1; }
    read -r w u s m <<EOF
$(tail -1 "$OUT/time")
EOF
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then
        best=$w; cpu=$(echo "$u + $s" | bc); rss=$((m / 1024))
    fi
    i=$((i + 1))
done
if [ "${VISDB_THREADS:-0}" = 1 ]; then
    rm -f "$OUT/ours.vis.db"
    perf record -q -e task-clock -F 1000 -o "$OUT/perf.data" "$BIN" compare "$P" "$BB" --vis-db "$OUT/ours.vis.db" $OC \
        >/dev/null 2>&1   # exit 1: the pairs differ
    [ -s "$OUT/perf.data" ] || { echo "visdb: perf record failed"; exit 1; }
    # samples at 1 kHz of task-clock: milliseconds of CPU per thread; the
    # first thread is the main one, the longest other the database's
    # in time order: the serial prefix is the main thread's CPU before the
    # database thread's fifth sample (5 ms in: inserting, not just started;
    # until the first rows go in), the tail
    # every thread's after the last sample of a thread neither main nor
    # the database's (the rows still to insert, the commit); the critical
    # path estimate runs those on one core and the rest on all of them
    perf script -i "$OUT/perf.data" -F tid,time 2>/dev/null | awk -v n="$(nproc)" '
        { sub(":", "", $2); k++; tid[k] = $1; c[$1]++; tot++; if (!first) first = $1 }
        END {
            for (t in c) if (t != first && c[t] > db) { db = c[t]; dbt = t }
            rest = tot - c[first] - db
            printf "CPU per thread: main %.2f s, database %.2f s, the others (readers, compare, rows) %.2f s; total %.2f s\n", \
                c[first] / 1000, db / 1000, rest / 1000, tot / 1000
            lb = tot / 1000 / n; if (c[first] / 1000 > lb) lb = c[first] / 1000; if (db / 1000 > lb) lb = db / 1000
            printf "on %d idle cores: at least %.2f s (the total over the cores, or the busiest thread)\n", n, lb
            for (i = 1; i <= k && seen < 5; i++) { if (tid[i] == first) pre++; if (tid[i] == dbt) seen++ }
            for (i = k; i >= 1 && (tid[i] == first || tid[i] == dbt); i--) tail++
            cp = (pre + tail + (tot - pre - tail) / n) / 1000; if (cp < lb) cp = lb
            printf "serial prefix (main before the first insert) %.2f s, serial tail (after the last rows made) %.2f s; critical path %.2f s\n", \
                pre / 1000, tail / 1000, cp
        }'
    rm -f "$OUT/perf.data"
fi
ms=$MS_REF; how="measured once here (MSPROBE_SRC unset)"
if [ -n "${MSPROBE_SRC:-}" ]; then
    # msProbe refuses paths holding '+': a copy of its python/ folder
    W=$(mktemp -d)
    cp -r "$MSPROBE_SRC/python" "$W/python"
    mkdir -p "$W/out"
    AP=$(cd "$P" && pwd); AB=$(cd "$BB" && pwd)
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/ms.time" env PYTHONHASHSEED=0 PYTHONPATH="$W/python" \
        /usr/bin/python3 -m msprobe.msprobe graph_visualize -tp "$AP" -gp "$AB" -o "$W/out" $MOC >/dev/null 2>&1
    ms=$(tail -1 "$OUT/ms.time" | cut -d' ' -f1); how="this run"
    ref=$(ls "$W"/out/*.vis.db 2>/dev/null | head -1)
    if [ -n "$ref" ]; then
        if $PY "$HERE/../oracle/visdb_canon.py" "$OUT/ours.vis.db" "$ref" > "$OUT/diff.txt"; then
            echo "the two databases are equal row for row ($(sqlite3 "$ref" 'select count(*) from tb_nodes' 2>/dev/null) tb_nodes rows)"
        else
            echo "the two databases DIFFER:"; head -5 "$OUT/diff.txt"
        fi
    else
        echo "msProbe wrote no database"
    fi
    rm -rf "$W"
fi
printf "probetop compare --vis-db: %6.2f s (CPU %.2f s, peak RSS %s MB, best of %s, load %s)\n" "$best" "$cpu" "$rss" \
    "$REPEAT" "$(cut -d' ' -f1 /proc/loadavg)"
printf "msProbe graph_visualize:   %6.2f s (%s)\n" "$ms" "$how"
printf "ratio: %.1fx (target 30x)\n" "$(echo "$ms / $best" | bc -l)"
