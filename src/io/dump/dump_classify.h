/* dump_classify: a dump record's metric from its name, and the name as
 * msProbe's data2db stores it (probetop-rules(7), TREND TARGETS): the
 * forward/backward word stripped, the parameters_grad part cut. */
#ifndef PT_DUMP_CLASSIFY_H
#define PT_DUMP_CLASSIFY_H

#include <stddef.h>

/* k (*n bytes, room for a NUL after them) modified in place to the
 * stripped name (*n its length, NUL-terminated when a metric is found);
 * returns the metric (enum dump_metric, read_dump.h: forward may become
 * recompute later) or -1 (skip). */
int dump_classify(char *k, size_t *n);

/* Python's k.replace(".<w>.", ".").replace(".<w>", "") in place (k: n bytes
 * and room for a NUL), the two passes as written: dump_classify's answer
 * for a name with more than one ".<w>", and the reference its tests hold
 * the one-pass answer to. */
size_t dump_strip_word(char *k, size_t n, const char *w);

#endif
