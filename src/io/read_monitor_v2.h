/* read_monitor_v2: msProbe monitor_v2 CSV trees (probetop-formats(5),
 * MONITOR V2 CSV TREES).  The reader is a row of the reader table
 * (formats.c); this header only says how its metrics map onto msProbe's v1
 * monitor metrics in a .trend.db, for tests and tools that check it. */
#ifndef PT_READ_MONITOR_V2_H
#define PT_READ_MONITOR_V2_H

/* The v1 metric name ("actv", ...) a v2 metric ("module/forward", ...) is
 * written as by data2db; NULL when it has none. */
const char *monitor_v2_v1_metric(const char *v2);

#endif
