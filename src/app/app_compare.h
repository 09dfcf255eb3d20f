/* app_compare: the graph side of the app -- what the tree and detail panes
 * show, for the three ways in:
 *   - compare mode, `probetop PROBLEM BENCH`: the (step, rank) pairs both
 *     dumps have, each read (the two sides in two threads), built and
 *     compared (model/compare/compare.h) in the background when it is chosen;
 *   - build mode, `probetop DUMP` with construct.json: the problem tree
 *     alone (structure and overflow marks, no verdicts);
 *   - `probetop FILE.vis.db`: the graphs msProbe stored, read-only.
 *
 * Owns the pair list, the one loaded (step, rank) graph (struct acmp_graph:
 * both trees, the compare, the overflow marks, the peers of communication
 * nodes), the loader thread, the options (--fuzzy-match, --layer-mapping,
 * --match-config), the pairs matched by hand this session (re-applied when
 * a (step, rank) is loaded again), the whole-run summary of compare mode
 * over several pairs (every pair compared once, src/cmp_scan.h), and the run
 * choice of the trend screen (problem, benchmark, relative difference) with
 * the cubes it needs.
 *
 * Threads: the loader thread builds a new struct acmp_graph and touches
 * nothing else; the UI thread swaps it in (acmp_poll).  The scan thread
 * writes summary entry i and then sets sready[i]; the UI reads an entry
 * only once it is set. */
#ifndef PT_APP_COMPARE_H
#define PT_APP_COMPARE_H

#include <stdint.h>

#include "model/err.h"
#include "src/io/compare/cmp_files.h"
#include "src/io/compare/cmp_scan.h"
#include "src/io/load.h"
#include "src/io/visdb/read_visdb.h"
#include "views/graph.h"

/* The types (struct app_cmp, struct acmp_graph ...) and the node queries
 * the panes use are views/graph.h; here is what only src/app calls. */

/* After the options: decides what the input is and lists the pairs.
 * Compare and .vis.db modes fail (-1, err) when nothing can be shown;
 * in trend mode a dump without construct.json just gets no tree (0, and
 * a->cmp stays NULL). */
int acmp_open(struct app *a, struct pt_error *err);
void acmp_free(struct app *a);

/* The start: compare mode with several pairs starts the whole-run scan
 * (the summary pane shows it; the tree of the first divergence is loaded
 * when it ends); otherwise the first pair's graph starts loading. */
int acmp_start(struct app *a, struct pt_error *err);

/* Loads synchronously (start-up, tests of the tree ready time). */
int acmp_load_now(struct app *a, int32_t step, int32_t rank, struct pt_error *err);
/* The event loop calls this: when a load finished, swaps it in and tells
 * the panes (APP_CH_DATA); returns 1 then. */
int acmp_poll(struct app *a);
/* The trend dataset arrived (trend mode): overflow marks from its records. */
void acmp_data_ready(struct app *a);




/* The trend screen's run: swaps a->cube to the problem, benchmark or
 * relative-difference cube. */
int acmp_set_run(struct app *a, int run, struct pt_error *err);
const char *acmp_run_name(int run);

#endif
