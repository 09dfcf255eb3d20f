/* read_anomaly: msProbe's monitor anomaly reports (probetop-formats(5),
 * MONITOR ANOMALY REPORTS) into ds->anomalies.
 *
 * The reports annotate a monitor dataset: a monitor reader (v1 or v2)
 * calls anomaly_attach() on its tree once the cube is built, and the list
 * of `<tree>/anomaly_detected/` is read, sorted and placed on the cube.
 * Opening the reports alone (the anomaly_detected folder, an anomaly.json
 * or an anomaly_analyse.json) is the table row formats_row_anomaly
 * (monitor_rows.c): it loads the monitor tree they sit in, if any, and
 * shows the list opened. */
#ifndef PT_READ_ANOMALY_H
#define PT_READ_ANOMALY_H

#include "model/cube/dataset.h"
#include "model/err.h"

/* The names msProbe gives the reports: the folder beside the rank folders,
 * one file per rank in it, and the analyser's summary. */
#define ANOMALY_DIR "anomaly_detected"
#define ANOMALY_JSON "anomaly.json"
#define ANALYSE_JSON "anomaly_analyse.json"

/* Reads `tree`/anomaly_detected when there is one into ds->anomalies (bad
 * files and entries are warnings in ds naming file and key), sorted and
 * placed on ds->cube.  No folder: nothing, 0.  -1 (err) only without memory. */
int anomaly_attach(const char *tree, struct dataset *ds, struct pt_error *err);

/* Reads a report path (an anomaly_detected folder, an anomaly.json, an
 * anomaly_analyse.json) into l; problems are warnings in ds.  0, or -1
 * (err) without memory. */
int anomaly_read_path(const char *path, struct anomaly_list *l, struct dataset *ds, struct pt_error *err);

/* Reads one report file's text (len bytes; what names it in warnings) into
 * l.  For the fuzz harness and anomaly_read_path.  0, or -1 without memory. */
int anomaly_parse(const char *text, size_t len, const char *what, struct anomaly_list *l, struct dataset *ds,
                  struct pt_error *err);

#endif
