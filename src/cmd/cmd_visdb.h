/* cmd_visdb: what `probetop info` and `probetop overflow` say about a
 * msProbe .vis.db (the graphs graph_visualize stored), which holds graphs
 * rather than trend data: its kind, graphs, steps, ranks and nodes, and the
 * nodes msProbe's overflow check (-oc) flagged. */
#ifndef PT_CMD_VISDB_H
#define PT_CMD_VISDB_H

/* Whether path names a .vis.db (by its name, as the analyzer decides). */
int cmd_visdb_is(const char *path);

/* `info PATH` on a .vis.db: text, or one JSON object.  An exit code. */
int cmd_visdb_info(const char *path, int json);

/* `overflow PATH` on a .vis.db; fmt "text", "csv" or "json"; min_level an
 * enum ovf_level; limit 0 = all.  An exit code (1 when a node is flagged). */
int cmd_visdb_overflow(const char *path, const char *fmt, int min_level, long limit, int partial_ok);

#endif
