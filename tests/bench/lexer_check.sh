#!/bin/sh
# Two probetop builds (before and after a change to the JSON tokenizer or
# the number reading) must give the same outputs on the same inputs:
#   - data2db: the same canonical database text (data2db_canon_check.sh);
#   - compare: the same csv, byte for byte, for every rank pair of a step;
#   - trace: the same json (--per-step) for each trace folder named, and
#     for the HTA fixtures of tests/data.
#   tests/bench/lexer_check.sh BIN_A BIN_B DUMP PROBLEM_DUMP [TRACE_DIR...]
# DUMP and PROBLEM_DUMP are gen_dump.py runs of the same shape (one with
# --nan); their step0 folders are compared.  Exit 1 on the first difference.
set -u
A=$1 B=$2 DUMP=$3 NAN=$4
shift 4
HERE=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
status=0
same() {   # what, file a, file b
    if cmp -s "$2" "$3"; then echo "same: $1 ($(wc -c < "$2") bytes)"
    else echo "DIFFERENT: $1"; diff "$2" "$3" | head -10; status=1; fi
}
sh "$HERE/data2db_canon_check.sh" "$A" "$B" "$DUMP" || status=1
for r in "$DUMP"/step0/rank*; do
    rank=$(basename "$r")
    "$A" compare "$NAN/step0/$rank" "$r" --csv "$T/a.csv" >/dev/null 2>&1
    "$B" compare "$NAN/step0/$rank" "$r" --csv "$T/b.csv" >/dev/null 2>&1
    [ -s "$T/a.csv" ] || { echo "compare $rank: no csv"; status=1; continue; }
    same "compare csv step0/$rank" "$T/a.csv" "$T/b.csv"
done
for d in "$@" "$HERE"/../data/traces/hta/*/; do
    [ -e "$d" ] || continue
    "$A" trace "$d" --format json --per-step > "$T/a.json" 2>&1
    "$B" trace "$d" --format json --per-step > "$T/b.json" 2>&1
    same "trace json $d" "$T/a.json" "$T/b.json"
done
exit $status
