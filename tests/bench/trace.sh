#!/bin/sh
# Profiler traces (probetop trace, probetop(1)): the parse rate of a generated 1 GB trace (two
# ranks of 500 MB, plain JSON; tests/gen_trace.py --pad-mb), of the same
# shape gzip'ed (rate in inflated bytes), a gzip bomb within --mem, and
# `probetop trace` on the three
# HTA fixtures beside HolisticTraceAnalysis's parse + breakdown when
# HTA_SRC=<HTA checkout> is set (it needs pandas and plotly), and every table
# (breakdown, kernel types, top kernels, idle) for 8 ranks of about 1 GB,
# beside HTA's same tables (tests/oracle/hta_tables.py) on 8 ranks of 1/100
# of that (HTA takes minutes on the full size).
# With PT_BIN_BEFORE=<an older probetop> the rates, the fixtures and the
# tables run for it too ("before", first), each line with the load average.
# Sizes 4x apart, beside HTA at two of them: trace_scale.sh.
# Run alone (sh tests/bench/trace.sh) or as the end of run.sh.
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
OLD=${PT_BIN_BEFORE:-}
PY=${PYTHON:-python3}
HERE=$(dirname "$0")
D=$B/bench-data
mkdir -p "$D"
if [ ! -f "$D/trace1g/.done" ]; then
    echo "bench: generating a 1 GB trace (gen_trace.py --ranks 2 --pad-mb 500) ..."
    rm -rf "$D/trace1g" && $PY "$HERE/../gen_trace.py" "$D/trace1g" --ranks 2 --steps 4 --pad-mb 500 && touch "$D/trace1g/.done"
fi
if [ ! -f "$D/tracegz/.done" ]; then
    rm -rf "$D/tracegz" && $PY "$HERE/../gen_trace.py" "$D/tracegz" --ranks 2 --steps 4 --pad-mb 100 --gz && touch "$D/tracegz/.done"
fi
# best of 3 by wall time, with that run's CPU seconds and peak RSS
timed() {
    best=""
    for i in 1 2 3; do
        /usr/bin/time -f "%e %U %S %M" -o "$D/trace.time" "$@" > /dev/null 2>&1
        t=$(tail -1 "$D/trace.time" | cut -d' ' -f1)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
            best=$t
            cpu=$(tail -1 "$D/trace.time" | awk '{print $2 + $3}')
            rss=$(tail -1 "$D/trace.time" | awk '{printf "%.0f", $4 / 1024}')
        fi
    done
    echo "$best $cpu $rss"
}
load() { cut -d' ' -f1 /proc/loadavg; }
# the sides to run: "before" (PT_BIN_BEFORE, when set), then "after"
sides() { [ -n "$OLD" ] && echo before; echo after; }
bin_of() { if [ "$1" = before ]; then echo "$OLD"; else echo "$BIN"; fi; }
per() { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.1f", $1 / 1000000 / $2; else print "-" }'; }
bytes=$(cat "$D"/trace1g/*.json | wc -c)
echo "== profiler traces, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
zbytes=$(cat "$D"/tracegz/*.json.gz | wc -c)
ibytes=$(for f in "$D"/tracegz/*.json.gz; do gzip -dc "$f"; done | wc -c)
for side in $(sides); do
    set -- $(timed "$(bin_of $side)" trace "$D/trace1g" --format csv)
    echo "probetop trace ($side), $((bytes / 1000000)) MB plain JSON: $1 s ($(per "$bytes" "$1") MB/s), CPU $2 s ($(per "$bytes" "$2") MB/s per CPU second), peak RSS $3 MB (goal: 200 MB/s on 2 cores) load $(load)"
    set -- $(timed "$(bin_of $side)" trace "$D/tracegz" --format csv)
    echo "probetop trace ($side), $((zbytes / 1000000)) MB gzip ($((ibytes / 1000000)) MB inflated): $1 s ($(per "$ibytes" "$1") MB/s inflated), CPU $2 s, peak RSS $3 MB load $(load)"
done
# a gzip bomb: 4 M sub-us kernels (and their launches) on one rank, out of
# order (gen_trace.py --bomb), unbounded and within --mem 64M: the per-step
# table the same, the peak memory bounded
if [ ! -f "$D/tracebomb/.done" ]; then
    rm -rf "$D/tracebomb" && $PY "$HERE/../gen_trace.py" "$D/tracebomb" --ranks 1 --steps 8 --bomb 4000000 --gz && touch "$D/tracebomb/.done"
fi
zbytes=$(cat "$D"/tracebomb/*.json.gz | wc -c)
for m in 4G 64M; do
    set -- $(timed "$BIN" trace "$D/tracebomb" --per-step --format csv --mem $m)
    "$BIN" trace "$D/tracebomb" --per-step --format csv --mem $m > "$D/bomb.$m.csv" 2> /dev/null
    echo "probetop trace --mem $m, gzip bomb of 4 M kernels ($((zbytes / 1000000)) MB gzip): $1 s, CPU $2 s, peak RSS $3 MB load $(load)"
done
cmp -s "$D/bomb.4G.csv" "$D/bomb.64M.csv" && echo "  per-step tables: the same" || echo "  per-step tables DIFFER"
for f in sampled_2rank nccl_2rank rank3_of_8; do
    dir=$HERE/../data/traces/hta/$f
    [ -d "$dir" ] || { echo "fixture $dir absent"; continue; }
    line="$f:"
    for side in $(sides); do
        set -- $(timed "$(bin_of $side)" trace "$dir" --format csv)
        line="$line probetop trace ($side) $1 s (CPU $2 s, RSS $3 MB);"
    done
    if [ -n "${HTA_SRC:-}" ]; then
        set -- $(timed env PYTHONPATH="$HTA_SRC" /usr/bin/python3 -c "
import logging; logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis as T
a = T(trace_dir='$dir'); a.get_temporal_breakdown(visualize=False); a.get_comm_comp_overlap(visualize=False)")
        line="$line HTA parse + breakdown + overlap $1 s (CPU $2 s, RSS $3 MB)"
    else
        line="$line HTA skipped (set HTA_SRC to time HTA)"
    fi
    echo "$line load $(load)"
done
# every table for 8 ranks of ~1 GB in total (Megatron-shaped: 2 500 steps of
# 8 micro-batches, about 285 000 kernels a rank)
if [ ! -f "$D/trace8r/.done" ]; then
    echo "bench: generating 8 ranks of ~125 MB (gen_trace.py --ranks 8 --steps 2500 --micro 8) ..."
    rm -rf "$D/trace8r" && $PY "$HERE/../gen_trace.py" "$D/trace8r" --ranks 8 --steps 2500 --micro 8 && touch "$D/trace8r/.done"
fi
if [ ! -f "$D/trace8r_small/.done" ]; then
    rm -rf "$D/trace8r_small" && $PY "$HERE/../gen_trace.py" "$D/trace8r_small" --ranks 8 --steps 25 --micro 8 && touch "$D/trace8r_small/.done"
fi
bytes=$(cat "$D"/trace8r/*.json | wc -c)
kernels=$("$BIN" trace "$D/trace8r" --format json 2>/dev/null | $PY -c "import json,sys; print(sum(r['kernels'] for r in json.load(sys.stdin)['ranks']))")
for side in $(sides); do
    set -- $(timed "$(bin_of $side)" trace "$D/trace8r" --format json)
    echo "probetop trace ($side) --format json (breakdown, kernel types, top kernels, idle), 8 ranks, $((bytes / 1000000)) MB, $kernels kernels in HTA's window: $1 s, CPU $2 s, peak RSS $3 MB (goal: < 3 s) load $(load)"
    set -- $(timed "$(bin_of $side)" trace "$D/trace8r" --format csv)
    echo "  the breakdown alone (--format csv, $side): $1 s, CPU $2 s ($(per "$bytes" "$1") MB/s; goal 700 MB/s, gz and plain) load $(load)"
done
# the same 8 ranks gzip'ed (gen_trace.py --gz): the same tables, MB/s of the plain bytes
if [ ! -f "$D/trace8r_gz/.done" ]; then
    echo "bench: generating the same 8 ranks gzip'ed (gen_trace.py --ranks 8 --steps 2500 --micro 8 --gz) ..."
    rm -rf "$D/trace8r_gz" && $PY "$HERE/../gen_trace.py" "$D/trace8r_gz" --ranks 8 --steps 2500 --micro 8 --gz && touch "$D/trace8r_gz/.done"
fi
gzbytes=$(cat "$D"/trace8r_gz/*.json.gz | wc -c)
for side in $(sides); do
    set -- $(timed "$(bin_of $side)" trace "$D/trace8r_gz" --format csv)
    echo "  gzip'ed, $((gzbytes / 1000000)) MB of .json.gz ($side): --format csv $1 s, CPU $2 s ($(per "$bytes" "$1") MB/s of plain JSON; goal 700 MB/s) (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
sbytes=$(cat "$D"/trace8r_small/*.json | wc -c)
line="8 ranks, $((sbytes / 1000000)) MB:"
for side in $(sides); do
    set -- $(timed "$(bin_of $side)" trace "$D/trace8r_small" --format json)
    line="$line probetop trace --format json ($side) $1 s;"
done
if [ -n "${HTA_SRC:-}" ]; then
    set -- $(timed env PYTHONPATH="$HTA_SRC" /usr/bin/python3 "$HERE/../oracle/hta_tables.py" "$D/trace8r_small")
    line="$line HTA parse + kernel breakdown + idle breakdown (hta_tables.py) $1 s (CPU $2 s, RSS $3 MB)"
else
    line="$line HTA skipped (set HTA_SRC to time HTA)"
fi
echo "$line load $(load)"
