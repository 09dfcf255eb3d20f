/* fuzz_curve_table: one CSV or JSONL export of training curves through
 * curve_table_parse (the part of src/io/curves/read_curve_table.c that
 * reads a file's bytes).  On success the curves are finished: every series
 * sorted by step without a repeated step, and a cube built. */
#include "fuzz.h"

#include "src/io/load.h"
#include "src/io/curves/read_curve_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct dataset *ds = calloc(1, sizeof *ds);
    if (!ds) abort();
    struct load_opts lo;
    load_opts_init(&lo);
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    struct pt_error err;
    if (curve_table_parse(buf, size, "fuzz/curves.csv", &lo, ds, &err) == 0) {
        if (!ds->curves || !ds->cube) abort();
        for (size_t i = 0; i < ds->curves->nseries; i++) {
            const struct curves_series *s = &ds->curves->series[i];
            for (size_t k = 1; k < s->n; k++)
                if (s->pts[k - 1].step >= s->pts[k].step) abort();
        }
    }
    free(buf);
    dataset_free(ds);
    return 0;
}
