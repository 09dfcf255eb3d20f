#!/bin/sh
# No source file of the program is over 1000 lines: a file that grows past
# it has more than one job and is split (one job per file).  Lists the
# offenders with their length.
#   tests/file_length.sh SOURCE_DIR [LIMIT]
set -u
src=$1 limit=${2:-1000}
cd "$src" || exit 1
long=$(find src model views ui -name '*.[ch]' | sort | xargs wc -l |
       awk -v n="$limit" '$2 != "total" && $1 > n { printf "%5d %s\n", $1, $2 }' | sort -rn)
if [ -n "$long" ]; then
    echo "source files over $limit lines (split them, one job per file):"
    echo "$long"
    exit 1
fi
echo "1 passed, 0 failed"
