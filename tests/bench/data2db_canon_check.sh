#!/bin/sh
# Two probetop builds convert the same dump; their databases must print the
# same canonical text (tests/trenddb_canon.py) and pass SQLite's
# integrity check.  For changes to the data2db writer, e.g.
#   tests/bench/data2db_canon_check.sh /tmp/before/probetop build-rel/probetop build/bench-data/full/dump
set -eu
A=$1 B=$2 DUMP=$3
PY=${PYTHON:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for side in a b; do
    if [ $side = a ]; then bin=$A; else bin=$B; fi
    "$bin" data2db --data "$DUMP" --db "$T/$side" 2>/dev/null
    for db in "$T/$side"/*.trend.db; do
        ok=$(sqlite3 "$db" 'PRAGMA integrity_check')
        [ "$ok" = ok ] || { echo "$db: integrity_check: $ok"; exit 1; }
        "$PY" "$(dirname "$0")/../trenddb_canon.py" "$db" > "$db.canon"
    done
done
status=0
for f in "$T/a"/*.canon; do
    g="$T/b/$(basename "$f")"
    if cmp -s "$f" "$g"; then echo "same: $(basename "$f" .canon) ($(wc -l < "$f") lines)"
    else echo "DIFFERENT: $(basename "$f" .canon)"; diff "$f" "$g" | head -10; status=1; fi
done
exit $status
