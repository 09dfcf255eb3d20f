#!/usr/bin/env python3
# probetop's own test tool (written for this project, kept with its tests): the
# canonical text a written .trend.db is compared by.
"""trenddb_canon.py - print a .trend.db as canonical text, for comparing writers.

Usage: trenddb_canon.py FILE.trend.db > FILE.canonical.txt

Every table is printed tab-separated and sorted by its key. monitoring_tags is
printed without tag_id, and tag_target_mapping with each tag resolved to its
(metric_id, category, tag_name) row, because msProbe numbers tags in a
non-deterministic order; for the same reason the metric columns of
global_stats and the statistic lists inside them are sorted. Two databases with the same content print the same
text; the files under tests/data/msprobe/derived/*/ were made this way.
Standard library only.
"""
import sqlite3
import sys


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def table(out, title, cols, rows):
    out.append("## " + title)
    out.append("\t".join(cols))
    for r in rows:
        out.append("\t".join(fmt(v) for v in r))
    out.append("")


def columns(db, name):
    return [r[1] for r in db.execute("PRAGMA table_info(%s)" % name)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = ["# canonical content dump (tag_id values omitted: they are not deterministic)", ""]
    if "global_stats" in names:
        # msProbe orders the metric columns and the statistic lists inside them by set
        # iteration, so both are sorted here; the three leading columns keep their place.
        cols = columns(db, "global_stats")
        fixed = [c for c in cols if c in ("max_rank", "min_step", "max_step")]
        metric_cols = sorted(c for c in cols if c not in fixed)
        rows = []
        for r in db.execute("SELECT %s FROM global_stats" % ", ".join(fixed + metric_cols)):
            rows.append(list(r[:len(fixed)]) +
                        [v if not isinstance(v, str) else ",".join(sorted(v.split(",")))
                         for v in r[len(fixed):]])
        table(out, "global_stats (metric columns and statistic lists sorted)", fixed + metric_cols, rows)
    if "monitoring_metrics" in names:
        table(out, "monitoring_metrics", ["metric_id", "metric_name"],
              db.execute("SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY metric_id"))
    if "sqlite_sequence" in names:
        table(out, "sqlite_sequence", ["name", "seq"],
              db.execute("SELECT name, seq FROM sqlite_sequence ORDER BY name"))
    if "monitoring_targets" in names:
        table(out, "monitoring_targets", ["target_id", "target_name", "vpp_stage", "micro_step"],
              db.execute("SELECT target_id, target_name, vpp_stage, micro_step "
                         "FROM monitoring_targets ORDER BY target_id"))
    if "trend_data" in names:
        cols = columns(db, "trend_data")
        table(out, "trend_data (column order as created)", cols,
              db.execute("SELECT * FROM trend_data ORDER BY metric_id, rank, step, target_id"))
    if "monitoring_tags" in names:
        table(out, "monitoring_tags (without tag_id)", ["metric_id", "category", "tag_name"],
              db.execute("SELECT metric_id, category, tag_name FROM monitoring_tags "
                         "ORDER BY metric_id, category, tag_name"))
    if "tag_target_mapping" in names:
        table(out, "tag_target_mapping (tag resolved to its row)",
              ["target_id", "metric_id", "category", "tag_name"],
              db.execute("SELECT m.target_id, t.metric_id, t.category, t.tag_name "
                         "FROM tag_target_mapping m JOIN monitoring_tags t ON t.tag_id = m.tag_id "
                         "ORDER BY m.target_id, t.metric_id, t.category, t.tag_name"))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
