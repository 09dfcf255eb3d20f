#!/usr/bin/env python3
"""viewer_check.py - msProbe's trend viewer queries on two .trend.db files.

Usage: MSPROBE_SRC=<msProbe checkout> viewer_check.py A.trend.db B.trend.db

Runs the queries of msProbe's TensorBoard trend plugin (MonvisRepo in
plugins/tb_graph_ascend/monvis_plugin/server/repositories/monvis_repo.py:
global stats, statistics, tags, module names, heat maps and trends, with and
without a tag) on both files and says, per query, whether the rows are the
same. A file "opens in msProbe's viewer" when every answer equals the one on
the database msProbe writes from the same input. Exit 1 on a difference.
Needs only TensorBoard's logger, stubbed here.
"""
import json
import os
import sys
import tempfile


def main():
    if len(sys.argv) != 3 or not os.environ.get("MSPROBE_SRC"):
        sys.exit(__doc__)
    stub = tempfile.mkdtemp()
    os.makedirs(os.path.join(stub, "tensorboard", "util"))
    for f in ("tensorboard/__init__.py", "tensorboard/util/__init__.py"):
        open(os.path.join(stub, f), "w").close()
    with open(os.path.join(stub, "tensorboard/util/tb_logging.py"), "w") as f:
        f.write("import logging\nget_logger = lambda: logging.getLogger('tb')\n")
    sys.path[:0] = [stub, os.path.join(os.environ["MSPROBE_SRC"], "plugins")]
    from tb_graph_ascend.monvis_plugin.server.repositories.monvis_repo import MonvisRepo

    def run(path):
        r = MonvisRepo(path)
        out = {"global": r.query_global_stats(), "stat": r.query_metrics_stat()}
        metrics = [m[0] for m in r.conn.execute("SELECT metric_name FROM monitoring_metrics ORDER BY metric_id")]
        for name in metrics:
            mid = r.get_metric_id(name)
            tags = r.query_tags(name)
            out["tags " + name] = sorted(map(json.dumps, tags))
            out["modules " + name] = sorted(r.query_module_names_with_tags(None, name).items())
            tag = tags[len(tags) // 2]["id"] if tags else None
            for stat in ("norm", "max", "min", "mean"):
                try:
                    hm = r.query_heatmap_data_with_tags(stat, "t.step = ?", (0,), mid)
                except Exception:   # a statistic this file has not
                    continue
                out["heatmap %s %s" % (name, stat)] = sorted(json.dumps(x, sort_keys=True) for x in hm)
                tr = r.query_trend_data_with_tags(stat, "t.rank = ?", (0,), mid)
                out["trend %s %s" % (name, stat)] = sorted(json.dumps(x, sort_keys=True) for x in tr)
                if tag:
                    hm = r.query_heatmap_data_with_tags(stat, "t.step = ?", (0,), mid, [tag])
                    out["heatmap %s %s tag" % (name, stat)] = sorted(json.dumps(x, sort_keys=True) for x in hm)
        return out

    a, b = run(sys.argv[1]), run(sys.argv[2])
    status = 0
    for k in sorted(set(a) | set(b)):
        same = a.get(k) == b.get(k)
        n = len(a[k]) if isinstance(a.get(k), list) else 1
        print("%-40s %s (%d)" % (k, "same" if same else "DIFFERENT", n))
        status |= not same
    sys.exit(status)


if __name__ == "__main__":
    main()
