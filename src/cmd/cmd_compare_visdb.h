/* cmd_compare_visdb: `probetop compare RUN --vis-db FILE`, one run (no
 * benchmark) into the build .vis.db msProbe's graph_visualize -tp RUN
 * writes (src/io/visdb/write_visdb.h). */
#ifndef PT_CMD_COMPARE_VISDB_H
#define PT_CMD_COMPARE_VISDB_H

/* Every (step, rank) graph of path; overflow: -oc levels.  The exit status. */
int cmd_compare_visdb_build(const char *path, const char *vis, int overflow);

#endif
