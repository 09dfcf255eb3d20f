#!/bin/sh
# Crafted .trend.db files (probetop-formats(5), TREND.DB): peak memory of
# probetop info and overflow on each, with --mem 64M and the default --mem,
# under /usr/bin/time -f %M.  Every figure stays within --mem plus a fixed
# margin (the program, SQLite's page cache, the axes).  The databases are
# made here with Python's sqlite3:
#   claims   656 targets, rows at rank 0 steps 0-1, global_stats claiming
#            ranks 0..99 999 and steps 0..999 999 (a 44 KB file that once
#            took 630 MB)
#   spans    the same, with one row at rank 99 999 step 999 999 (axes of
#            10^5 ranks x 10^6 steps: a dense layout of 2.4 TB, refused)
#   text     text in the rank column (its rows are off the axes)
#   names    2 000 metrics x 20 000 targets (maps of 190 MB, refused under
#            --mem 64M)
# Called from run.sh; alone:  PT_BUILD=build sh tests/bench/crafted_db.sh
set -u
B=${PT_BUILD:-build}
BIN=${PT_BIN:-$B/probetop}
PY=${PYTHON:-python3}
D=$B/bench-data/crafted
mkdir -p "$D"
echo "== crafted .trend.db: peak memory of info and overflow (KB, exit code)"
if [ ! -x /usr/bin/time ]; then
    echo "bench: /usr/bin/time is missing (apt-get install time): skipped"
    exit 0
fi
"$PY" - "$D" <<'PYEOF' || exit 1
import os, sqlite3, sys
d = sys.argv[1]
schema = """
CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL,
  vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step));
CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);
CREATE TABLE global_stats (max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0);
CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL,
  metric_id INTEGER NOT NULL, norm REAL DEFAULT NULL, max REAL DEFAULT NULL,
  PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID;
"""
def new(name, targets, metrics, gs):
    p = os.path.join(d, name + ".trend.db")
    if os.path.exists(p):
        os.remove(p)
    db = sqlite3.connect(p)
    db.executescript(schema)
    db.executemany("INSERT INTO monitoring_targets (target_name, vpp_stage) VALUES (?, 0)",
                   [("module.decoder.layers.%d.mlp" % i,) for i in range(targets)])
    db.executemany("INSERT INTO monitoring_metrics (metric_name) VALUES (?)",
                   [("forward" if i == 0 else "m%d" % i,) for i in range(metrics)])
    db.execute("INSERT INTO global_stats VALUES (?, ?, ?)", gs)
    return db
db = new("claims", 656, 1, (99999, 0, 999999))
db.executemany("INSERT INTO trend_data VALUES (0, ?, ?, 1, 1.0, 2.0)", [(s, t) for s in range(2) for t in range(1, 657)])
db.commit()
db = new("spans", 656, 1, (99999, 0, 999999))
db.executemany("INSERT INTO trend_data VALUES (0, 0, ?, 1, 1.0, 2.0)", [(t,) for t in range(1, 657)])
db.execute("INSERT INTO trend_data VALUES (99999, 999999, 1, 1, 1000000001.0, 2.0)")
db.commit()
db = new("text", 8, 1, (3, 0, 3))
db.executemany("INSERT INTO trend_data VALUES (?, ?, ?, 1, 1.0, 2.0)",
               [(r, s, t) for r in range(4) for s in range(4) for t in range(1, 9)])
db.executemany("INSERT INTO trend_data VALUES ('r' || ?, ?, ?, 1, 1.0, 2.0)",
               [(r, s, t) for r in range(64) for s in range(4) for t in range(1, 9)])
db.commit()
db = new("names", 20000, 2000, (0, 0, 0))
db.executemany("INSERT INTO trend_data VALUES (0, 0, ?, 1, 1.0, 2.0)", [(t,) for t in range(1, 20001)])
db.commit()
PYEOF
for f in claims spans text names; do
    ls -l "$D/$f.trend.db" | awk -v n="$f" '{printf "%-7s %8d bytes:", n, $5}'
    for mem in 64M default; do
        for cmd in info overflow; do
            opt=""
            [ "$mem" = default ] || opt="--mem $mem"
            /usr/bin/time -f "%M %e" -o "$D/t" "$BIN" $cmd "$D/$f.trend.db" $opt >/dev/null 2>"$D/err"
            rc=$?
            [ $rc -le 2 ] || rc="$rc($(head -c 60 "$D/err"))"
            printf "  %s %s %s KB %s s exit %s;" "$cmd" "$mem" "$(tail -1 "$D/t" | cut -d' ' -f1)" \
                "$(tail -1 "$D/t" | cut -d' ' -f2)" "$rc"
        done
    done
    echo
done
