#!/bin/sh
# TensorBoard event files (probetop-formats(5), TRAINING CURVES: TensorBoard
# event files): the parse rate of 1 GB of event files (16 files of 64 MB,
# one Megatron-style run, 4 series; tests/bench/bench_tfevents.c writes them)
# loaded whole (`probetop info`: framing, both CRCs, decoding, the series
# sorted, the cube), beside a plain read of the same bytes (`cat`,
# `grep -c`) as the ceiling.  Wall time on a shared machine depends on
# its load: the rate per CPU second is printed too.  Not a test.
#   cmake --build build --target bench_tfevents && sh tests/bench/curves_tfevents.sh
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
MB=${TFE_MB:-1024}
D=$B/bench-data/tfevents$MB
if [ ! -f "$D/.done" ]; then
    [ -x "$B/tests/bench_tfevents" ] || cmake --build "$B" --target bench_tfevents > /dev/null || exit 1
    echo "bench: writing $MB MB of event files (bench_tfevents) ..."
    rm -rf "$D" && mkdir -p "$D" && "$B/tests/bench_tfevents" "$D" "$MB" && touch "$D/.done" || exit 1
fi
# best of 3 by wall time: "wall cpu rss_mb"
timed() {
    best=""
    for i in 1 2 3; do
        /usr/bin/time -f "%e %U %S %M" -o "$D.time" "$@" > /dev/null 2>&1
        t=$(tail -1 "$D.time" | cut -d' ' -f1)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
            best=$t
            cpu=$(tail -1 "$D.time" | awk '{print $2 + $3}')
            rss=$(tail -1 "$D.time" | awk '{printf "%.0f", $4 / 1024}')
        fi
    done
    echo "$best $cpu $rss"
}
rate() { echo "scale=0; $1 / 1000000 / $2" | bc; }
bytes=$(cat "$D"/events.out.tfevents.* | wc -c)
echo "== TensorBoard event files, $((bytes / 1000000)) MB in $(ls "$D" | grep -c tfevents) files, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
set -- $(timed sh -c "cat '$D'/events.out.tfevents.* > /dev/null")
echo "cat > /dev/null:          $1 s ($(rate "$bytes" "$1") MB/s)"
set -- $(timed sh -c "cat '$D'/events.out.tfevents.* | grep -c loss")
echo "cat | grep -c loss:       $1 s ($(rate "$bytes" "$1") MB/s)"
set -- $(timed "$BIN" info "$D")
echo "probetop info (tfevents): $1 s ($(rate "$bytes" "$1") MB/s), CPU $2 s ($(rate "$bytes" "$2") MB/s per CPU second), peak RSS $3 MB (goal: 300 MB/s)"
