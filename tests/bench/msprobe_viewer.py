"""Times msProbe's trend viewer backend (MonvisRepo of its TensorBoard
plugin) on a .trend.db: the heat-map query of one step, one rank and one
target of the first metric, as its TREND ANALYZER issues them.

    python3 msprobe_viewer.py MSPROBE_SRC DB

MSPROBE_SRC: a msProbe work tree (its plugins/ folder).  TensorBoard is not
needed: a stub of tensorboard.util.tb_logging is put on the path."""
import logging, os, sys, tempfile, time

src, db = sys.argv[1], sys.argv[2]
stub = tempfile.mkdtemp()
os.makedirs(os.path.join(stub, "tensorboard", "util"))
for d in ("tensorboard", os.path.join("tensorboard", "util")):
    open(os.path.join(stub, d, "__init__.py"), "w").close()
with open(os.path.join(stub, "tensorboard", "util", "tb_logging.py"), "w") as f:
    f.write("import logging\nget_logger = lambda: logging.getLogger('tb')\n")
sys.path[:0] = [stub, os.path.join(src, "plugins", "tb_graph_ascend")]
from monvis_plugin.server.repositories.monvis_repo import MonvisRepo  # noqa: E402

t0 = time.time()
repo = MonvisRepo(db)
stats = repo.query_global_stats()
mid = repo.get_metric_id(repo.conn.execute("SELECT metric_name FROM monitoring_metrics ORDER BY metric_id").fetchone()[0])
stat = repo.conn.execute("PRAGMA table_info(trend_data)").fetchall()[4][1]
t1 = time.time()
out = []
for what, cond, params in (("one step", "t.step = ?", (stats["min_step"],)), ("one rank", "t.rank = ?", (0,)),
                           ("one target", "t.target_id = ?", (1,))):
    a = time.time()
    rows = repo.query_heatmap_data_with_tags(stat, cond, params, mid)
    out.append(f"{what} {time.time() - a:.3f} s ({len(rows)} rows)")
print(f"msProbe viewer (MonvisRepo): open {t1 - t0:.3f} s; heat-map query: " + "; ".join(out))
