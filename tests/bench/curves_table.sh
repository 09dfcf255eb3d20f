#!/bin/sh
# Benchmark (never a timed test): how fast the CSV reader of training
# curves (src/io/curves/read_curve_table.c, format `curve_table`) reads a
# big export (a step column and four series, ~50 bytes a row), printed
# beside `grep -c` on the same file (a ceiling: one pass that finds line
# ends).  The issue asks >= 300 MB/s, as for the log reader.
#   tests/bench/curves_table.sh BUILD/probetop [SIZE_MB (default 1024)] [DIR]
# The CSV is generated once into DIR (default $TMPDIR or /tmp) and kept for
# the next run (delete it yourself); each figure is the best of 3 runs, the
# file in the page cache (a first `cat` warms it).
set -eu
bin=$1
mb=${2:-1024}
dir=${3:-${TMPDIR:-/tmp}}
csv=$dir/probetop-bench-curves-${mb}M.csv
if [ ! -s "$csv" ]; then
    echo "writing $csv ($mb MB)..."
    mawk -v mb="$mb" 'BEGIN {
        n = int(mb * 1048576 / 50)
        print "step,lm loss,grad norm,loss scale,learning rate"
        for (i = 1; i <= n; i++)
            printf "%d,%.6f,%.4f,%d,%.6e\n", i, 8 - 6 * i / n + (i % 7) / 1000, 1 + (i % 1000) / 1000, 65536, 1e-4 * (1 - i / n)
    }' > "$csv.tmp" && mv "$csv.tmp" "$csv"
fi
bytes=$(stat -c %s "$csv")
cat "$csv" > /dev/null
best() {   # best of 3 wall-clock seconds of the command
    b=
    for k in 1 2 3; do
        t0=$(date +%s.%N); "$@" | cat > /dev/null; t1=$(date +%s.%N)   # (through cat: grep stops at the first match when its output is /dev/null)
        b=$(echo "$t0 $t1 ${b:-1e9}" | mawk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
    done
    echo "$b"
}
g=$(best grep -c , "$csv")
p=$(best "$bin" info "$csv" --format curve_table 2>/dev/null)
loadsec=$("$bin" info "$csv" --json 2>/dev/null | sed -n 's/.*"load_seconds": \([0-9.e-]*\).*/\1/p')
echo "$bytes $g $p $loadsec" | mawk '{
    printf "file            %.0f MB (%s)\n", $1 / 1e6, "'"$csv"'"
    printf "grep -c         %.3f s   %6.0f MB/s (ceiling)\n", $2, $1 / 1e6 / $2
    printf "probetop info   %.3f s   %6.0f MB/s (whole command: read, parse, cube, report)\n", $3, $1 / 1e6 / $3
    printf "  of which load %.3f s   %6.0f MB/s (reader + cube, load_seconds)\n", $4, $1 / 1e6 / $4
}'
