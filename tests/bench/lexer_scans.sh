#!/bin/sh
# One probetop build, its JSON tokenizer's scan variants against each
# other on whole runs (PROBETOP_JSON_SCAN, probetop(1) ENVIRONMENT): data2db
# (canonical .trend.db text, data2db_canon_check.sh) and trace (json,
# --per-step) with the portable scan, SSE2 and AVX2 in one pass, with
# two-pass skipping on the portable index, and with the two-pass token
# walk (tokens-*) must give what the default (the processor's best scan,
# two-pass skipping) gives.  Exit 1 on the first difference.
#   tests/bench/lexer_scans.sh BIN DUMP... [-- TRACE_DIR...]
set -u
VARIANTS=${VARIANTS:-portable sse2 avx2 index-portable tokens-portable tokens-avx2}
BIN=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
for v in $VARIANTS; do
    printf '#!/bin/sh\nPROBETOP_JSON_SCAN=%s exec "%s" "$@"\n' "$v" "$BIN" > "$T/$v"
    chmod +x "$T/$v"
done
status=0
dumps=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do dumps="$dumps $1"; shift; done
[ $# -gt 0 ] && shift
for v in $VARIANTS; do
    for d in $dumps; do
        echo "-- data2db $d: $v against the best scan"
        sh "$HERE/data2db_canon_check.sh" "$T/$v" "$BIN" "$d" || status=1
    done
    for d in "$@"; do
        "$T/$v" trace "$d" --format json --per-step > "$T/a.json" 2>&1
        "$BIN" trace "$d" --format json --per-step > "$T/b.json" 2>&1
        if cmp -s "$T/a.json" "$T/b.json"; then echo "same: trace json $d, $v ($(wc -c < "$T/a.json") bytes)"
        else echo "DIFFERENT: trace json $d, $v"; diff "$T/a.json" "$T/b.json" | head -10; status=1; fi
    done
done
exit $status
