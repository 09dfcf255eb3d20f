/* fuzz_lexdiff: the JSON tokenizer's variants against each other on the
 * same bytes (tests/lex_diff.h): every scan variant this processor runs
 * (portable, SSE2, AVX2), each in one pass and in the two-pass walks
 * (structural index, then skipping or tokens), with numbers by decfloat, against the portable
 * scan with every number through strtod, whole and in pieces of a few
 * bytes or of 300 (as trace_parse streams; the SSE2 and AVX2 fast path
 * runs with 160 bytes left), skipping some containers whole.  Any
 * difference in tokens, offsets, number bits or message aborts. */
#include <stdio.h>

#include "fuzz.h"
#include "tests/lex_diff.h"

static void differ(const char *what, int scan, size_t piece, long at) {
    fprintf(stderr, "fuzz_lexdiff: %s, scan %d, piece %zu: first difference at record %ld\n", what, scan, piece, at);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    const char *buf = (const char *)data;
    unsigned skip_every = size ? 1 + data[0] % 4 : 0;   /* 1: every container, ... 4: every fourth */
    int scans[LEXDIFF_SCANS], nscans = lexdiff_scans(scans);
    static const size_t pieces[] = {0, 5, 17, 300};   /* 300: more than the fast path's room */
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        for (unsigned skip = 0; skip <= skip_every; skip += skip_every ? skip_every : 1) {
            struct lexdiff_out ref;
            lexdiff_run(buf, size, JSON_SCAN_PORTABLE, 1, pieces[k], skip, &ref);
            for (int i = 0; i < nscans; i++)
                for (int slow = 0; slow <= 1; slow++) {
                    struct lexdiff_out o;
                    lexdiff_run(buf, size, scans[i], slow, pieces[k], skip, &o);
                    long at = lexdiff_cmp(&ref, &o);
                    lexdiff_free(&o);
                    if (at >= 0) differ(slow ? "strtod numbers" : "decfloat numbers", scans[i], pieces[k], at);
                }
            lexdiff_free(&ref);
            if (!skip_every) break;
        }
    }
    return 0;
}
