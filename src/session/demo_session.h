/* demo_session: `probetop --demo` as a real input.  The demo's files
 * (src/io/demo/demo_files.h: a problem/benchmark dump pair, training logs,
 * a profiler trace, monitor anomaly reports) are written into a private
 * folder made with mkdtemp under $TMPDIR (never beside the user's files),
 * and the session opens the pair as `probetop PROBLEM BENCH` would, with the
 * trace, the curves and the anomaly reports joined to the problem run's
 * data, so every pane, the compare screens and `f` have something to show.
 * The folder is removed when the session ends.  A folder, not memory: the
 * compare screens, the run scan and the origin search read dump folders by
 * path (src/session/graphs.c, src/io/compare/cmp_scan.c). */
#ifndef PT_DEMO_SESSION_H
#define PT_DEMO_SESSION_H

#include "model/err.h"

struct session;

/* Writes the files, points a at the pair (compare mode, paths[0..1], the
 * Megatron layout for the layout pane) and loads the problem run's data
 * with the extras.  0, or -1 with err (nothing left behind). */
int demo_session_open(struct session *a, struct pt_error *err);

/* Removes the folder and its files (only those the demo wrote); after
 * every reader is done (graphs_free, the loader joined).  Nothing when no
 * demo is open. */
void demo_session_close(struct session *a);

/* The private folder, NULL when none (tests). */
const char *demo_session_dir(const struct session *a);

#endif
