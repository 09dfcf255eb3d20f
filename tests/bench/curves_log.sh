#!/bin/sh
# Benchmark (never a timed test): how fast the text training-log reader
# (src/io/curves/read_log.c, format `log`) parses a big Megatron-LM log,
# printed beside `grep -c` on the same file (a ceiling: one pass that only
# finds line ends and one literal).  The issue asks >= 300 MB/s.
#   tests/bench/curves_log.sh BUILD/probetop [SIZE_MB (default 1024)] [DIR]
# The log is generated once into DIR (default $TMPDIR or /tmp) and kept
# for the next run (delete it yourself); each figure is the best of 3 runs,
# the file in the page cache (a first `cat` warms it).
set -eu
bin=$1
mb=${2:-1024}
dir=${3:-${TMPDIR:-/tmp}}
log=$dir/probetop-bench-megatron-${mb}M.log
if [ ! -s "$log" ]; then
    echo "writing $log ($mb MB)..."
    # lines of ~330 bytes: a real Megatron iteration line, and a banner every 50 lines
    mawk -v mb="$mb" 'BEGIN {
        n = int(mb * 1048576 / 330)
        for (i = 1; i <= n; i++) {
            if (i % 50 == 0) print "[after training is done] datetime: 2024-05-10 12:00:00 some banner line of the trainer"
            printf " [2024-05-10 12:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size:   128 | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
                i, n, i * 128, 1200 + (i % 100) / 10, 1e-4 * (1 - i / n), 8 - i / n, 65536, 1 + (i % 1000) / 1000
        }
    }' > "$log.tmp" && mv "$log.tmp" "$log"
fi
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null
best() {   # best of 3 wall-clock seconds of the command
    b=
    for k in 1 2 3; do
        t0=$(date +%s.%N); "$@" | cat > /dev/null; t1=$(date +%s.%N)   # (through cat: grep stops at the first match when its output is /dev/null)
        b=$(echo "$t0 $t1 ${b:-1e9}" | mawk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
    done
    echo "$b"
}
g=$(best grep -c iteration "$log")
bench=$(dirname "$bin")/tests/bench_curves_log   # cmake --build BUILD --target bench_curves_log
p=$(best "$bin" info "$log" --format log 2>/dev/null)
loadsec=$(PROBETOP_PATTERNS= "$bin" info "$log" --json 2>/dev/null | sed -n 's/.*"load_seconds": \([0-9.e-]*\).*/\1/p')
echo "$bytes $g $p $loadsec" | mawk '{
    printf "file            %.0f MB (%s)\n", $1 / 1e6, "'"$log"'"
    printf "grep -c         %.3f s   %6.0f MB/s (ceiling)\n", $2, $1 / 1e6 / $2
    printf "probetop info   %.3f s   %6.0f MB/s (whole command: parse, cube, report)\n", $3, $1 / 1e6 / $3
    printf "  of which load %.3f s   %6.0f MB/s (reader + cube, load_seconds)\n", $4, $1 / 1e6 / $4
}'
[ -x "$bench" ] && "$bench" "$log"
