#!/usr/bin/env python3
"""anomalies.py - write msProbe monitor alert reports for a monitor v1 tree.

Usage: PYTHONPATH=<msProbe>/python anomalies.py TREE

Runs msProbe's own report writer (msprobe.core.monitor.anomaly_processor:
AnomalyDataFactory, AnomalyDataWriter) as its training monitor does when an
AnomalyNan rule fires: one report per actv / actv_grad row of the tree
holding a NaN statistic (placeholder rows, every column nan, left out), tag
"<vpp>:<name>:<micro step>/rank<R>/<key>" with the statistic norm, the rule's
message in the monitor's words, the row's position in its file as call id.
Writes TREE/anomaly_detected/rank<R>/anomaly.json.  Needs msProbe on the path
(it is the reference's writer); regen.py runs it.
"""
import csv
import glob
import os
import re
import sys

from msprobe.core.monitor.anomaly_processor import AnomalyDataFactory, AnomalyDataWriter


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tree = sys.argv[1]
    out = os.path.join(tree, "anomaly_detected")
    for rank_dir in sorted(glob.glob(os.path.join(tree, "*-rank*-*"))):
        rank = int(re.search(r"-rank(\d+)-", os.path.basename(rank_dir)).group(1))
        factory = AnomalyDataFactory(rank, 0, [rank])
        anomalies = []
        for path in sorted(glob.glob(os.path.join(rank_dir, "actv*.csv"))):
            key = "actv_grad" if os.path.basename(path).startswith("actv_grad") else "actv"
            with open(path, newline="") as f:
                for pos, row in enumerate(csv.DictReader(f)):
                    if row["shape"] == "nan" or row["norm"] != "nan":
                        continue
                    tag = ("%s:%s:%s/rank%d/%s" % (row["vpp_stage"], row["name"], row["micro_step"], rank, key),
                           "norm")
                    factory.set_call_id({tag[0]: pos})
                    msg = ("Rule AnomalyNan reports anomaly signal in %s at step %s, current value nan, "
                           "history mean nan." % (tag, row["step"]))
                    anomalies.append(factory.create(tag, msg, int(row["step"])))
        writer = AnomalyDataWriter(out, rank)
        writer.init_detected_json()
        writer.write_detected_json(anomalies)


if __name__ == "__main__":
    main()
