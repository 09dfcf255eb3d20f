"""Asks msProbe's graph viewer backend (GraphRepoDB of its TensorBoard plugin,
the queries the browser's graph pane issues) the same questions of two
.vis.db files -- ours and msProbe's graph_visualize's for the same input --
and prints whether every answer is the same.

    python3 msprobe_plugin_graph.py MSPROBE_SRC OURS.vis.db THEIRS.vis.db

Each database is copied first (the plugin switches a database to WAL mode
when it opens it).  TensorBoard is not needed: a stub of
tensorboard.util.tb_logging and of
tensorboard.backend.http_util and werkzeug's Request (used by the web handlers
only) are put on the path.  Exit 0 same, 1 differ."""
import logging, os, shutil, sqlite3, sys, tempfile

src, ours, theirs = sys.argv[1:4]
stub = tempfile.mkdtemp()
for d in ("util", "backend"):
    os.makedirs(os.path.join(stub, "tensorboard", d))
for d in ("tensorboard", os.path.join("tensorboard", "util"), os.path.join("tensorboard", "backend")):
    open(os.path.join(stub, d, "__init__.py"), "w").close()
with open(os.path.join(stub, "tensorboard", "util", "tb_logging.py"), "w") as f:
    f.write("import logging\nget_logger = lambda: logging.getLogger('tb')\n")
os.makedirs(os.path.join(stub, "werkzeug", "wrappers"))
for d in ("werkzeug", os.path.join("werkzeug", "wrappers")):
    open(os.path.join(stub, d, "__init__.py"), "w").close()
with open(os.path.join(stub, "werkzeug", "wrappers", "request.py"), "w") as f:
    f.write("class Request:\n    pass\n")
with open(os.path.join(stub, "tensorboard", "backend", "http_util.py"), "w") as f:
    f.write("def Respond(*a, **k):\n    raise RuntimeError('no web server here')\n")
sys.path[:0] = [stub, os.path.join(src, "plugins", "tb_graph_ascend")]
from hierarchy_plugin.server.app.repositories.graph_repo_db import GraphRepoDB  # noqa: E402


def answers(path):
    d = tempfile.mkdtemp()
    os.chmod(d, 0o750)
    db = os.path.join(d, "x.vis.db")
    shutil.copy(path, db)
    os.chmod(db, 0o640)
    repo = GraphRepoDB(db)
    out = {"config": repo.query_config_info()}
    con = sqlite3.connect(db)
    graphs = con.execute("SELECT DISTINCT step, rank, data_source FROM tb_nodes ORDER BY 1, 2, 3").fetchall()
    names = con.execute("SELECT step, rank, data_source, node_name FROM tb_nodes ORDER BY 1, 2, 3, node_order").fetchall()
    con.close()
    for step, rank, src_ in graphs:
        k = "%s_%d_%d" % (src_, step, rank)
        out[k + ".root"] = repo.query_root_nodes(src_, rank, step)
        out[k + ".names"] = repo.query_node_name_list(rank, step, -1)
        if src_ == "NPU":
            meta = {"rank": rank, "step": step, "microStep": -1}
            rng = {"pass": [0, 0.3], "warning": [0.3, 0.6], "error": [0.6, 1]}
            out[k + ".precision"] = repo.query_node_list_by_precision(meta, rng, ["pass", "warning", "error"], True)
            out[k + ".overflow"] = repo.query_node_list_by_overflow(step, rank, -1, ["medium", "high", "critical"])
    for step, rank, src_, name in names:
        k = "%s_%d_%d.%s" % (src_, step, rank, name)
        out[k + ".sub"] = repo.query_sub_nodes(name, src_, rank, step)
        out[k + ".info"] = repo.query_node_info(name, src_, rank, step)
    shutil.rmtree(d)
    return out


a, b = answers(ours), answers(theirs)
bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
for k in bad[:10]:
    print("differs: %s\n  ours:   %s\n  theirs: %s" % (k, str(a.get(k))[:300], str(b.get(k))[:300]))
empty = sum(1 for k in a if not a[k])
print("msProbe's graph viewer (GraphRepoDB): %d answers (%d empty), %d differ" % (len(a), empty, len(bad)))
if empty == len(a):
    print("every answer is empty: the plugin could not read the databases")
    sys.exit(2)
sys.exit(1 if bad else 0)
