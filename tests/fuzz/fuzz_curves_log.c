/* fuzz_curves_log: bytes as a text training log through log_parse (the
 * part of src/io/curves/read_log.c that reads a file's lines), cut into
 * two pieces of whole lines at the place the first byte says (the
 * reader's chunks), with a user pattern when the second byte is odd.
 * After log_parse_finish every series is sorted by step, each step once,
 * and detection on the same bytes does not crash. */
#include "fuzz.h"

#include "src/io/curves/log_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t cut = size > 2 ? data[0] % (size - 2) : 0;
    int user = data[1] & 1;
    const char *buf = (const char *)data + 2;
    size_t len = size - 2;
    struct pt_error err;
    struct log_parse *lp = log_parse_new(&err);
    struct curves *c = curves_new();
    if (!lp || !c) abort();
    if (user && log_parse_add_user(lp, "mine=(?<step>-?\\d+)\\D+(?<value>\\S+)$", "--pattern", 0, &err) != 0) abort();
    struct log_parse_stats st;
    memset(&st, 0, sizeof st);
    while (cut && buf[cut - 1] != '\n') cut--;   /* whole lines first, as read_log.c gives them */
    if (log_parse_lines(lp, buf, cut, c, &st) != 0 || log_parse_lines(lp, buf + cut, len - cut, c, &st) != 0) abort();
    if (log_parse_finish(lp, c) != 0) abort();
    if (st.matched > st.lines) abort();
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t k = 1; k < c->series[i].n; k++)
            if (c->series[i].pts[k - 1].step >= c->series[i].pts[k].step) abort();
    log_parse_free(lp);
    curves_free(c);
    lp = log_parse_new(&err);
    if (!lp) abort();
    size_t lines;
    if (log_parse_count(lp, buf, len, &lines) > lines) abort();
    log_parse_free(lp);
    return 0;
}
