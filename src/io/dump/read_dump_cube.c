/* read_dump_cube: the dump row of the reader table (formats.h): msProbe
 * dump folders (stepS/rankR/dump.json, a rank folder or one dump.json)
 * into the cube, through read_dump's parallel parser. */
#include <stdlib.h>
#include <string.h>

#include "src/io/load.h"
#include "src/io/dump/read_dump.h"
#include "src/io/trenddb/write_trenddb.h"

struct dump_to_cube {
    struct cube_builder *b;
    int metric[DM_N];
    size_t notensor;         /* tensors without a statistic */
    int no_rows;             /* load_opts.overflow_only */
};

static int dump_cube_file(void *vctx, const struct dump_file *f, int32_t step_base) {
    struct dump_to_cube *c = vctx;
    struct names *nm = cube_builder_names(c->b);
    if (cube_builder_rank(c->b, f->rank) != 0) return -1;
    for (int k = 0; k < f->micro_count; k++)
        if (cube_builder_step(c->b, step_base + k, f->step, f->micro_count > 1 || k ? k : 0) != 0) return -1;
    for (size_t i = 0; i < f->nrows; i++) {
        const struct dump_tensor_row *r = &f->rows[i];
        /* a tensor object whose Max, Min, Mean and Norm are all null (empty,
         * meta, unavailable) describes no tensor values: missing data, as
         * msProbe's row of NULLs for it reads (probetop-rules(7), OVERFLOW
         * LEVELS) */
        int none = r->present == 0;
        c->notensor += (size_t)none;
        if (c->no_rows) continue;
        uint32_t t = names_intern(nm, f->arena + r->name, r->len, 0, r->call);
        if (t == NAMES_NONE) return -1;
        if ((none ? cube_builder_add_notensor(c->b, c->metric[r->metric], t, step_base + r->micro, f->rank)
                  : cube_builder_add(c->b, c->metric[r->metric], t, step_base + r->micro, f->rank, r->v, r->present)) != 0)
            return -1;
    }
    return 0;
}

static int load_dump(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct mapping map = {0};
    if (o->mapping && mapping_read(o->mapping, &map, err) != 0) return -1;
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) { mapping_free(&map); return pt_errorf(err, "out of memory"); }
    struct dump_to_cube ctx = {.b = b, .no_rows = o->overflow_only};
    for (int m = 0; m < DM_N; m++) ctx.metric[m] = cube_builder_metric(b, dump_metric_names[m], 4, dump_stat_names);
    struct dump_opts dopt = {.micro_step = o->micro_step, .mapping = &map, .want_rows = !o->overflow_only,
                             .layout = o->layout, .path_numbers = 1,
                             .origin_keep = o->origin_keep};
    struct dump_summary sum;
    int rc = dump_read(path, o, &dopt, ds, dump_cube_file, &ctx, &sum, err);
    mapping_free(&map);
    if (rc == 0 && sum.files_ok == 0)
        rc = pt_errorf(err, "%s: no dump.json could be read (%zu skipped; first: %s)", path, ds->nskipped,
                       ds->nwarnings ? ds->warnings[0] : "?");
    if (rc == 0) rc = cube_builder_finish(b, &ds->cube, err);
    cube_builder_free(b);
    ds->notensor_rows = ctx.notensor;
    ds->ovf_levels = 1;
    return rc;
}

/* A folder: when it holds a dump.  Any other file is read as a dump.json
 * (a guess: a .trend.db claims its own files surely). */
static int detect_dump(const char *path, const struct stat *st) {
    if (S_ISDIR(st->st_mode)) return dump_detect(path) ? 100 : 0;
    return 1;
}

const struct formats_row formats_row_dump = {
    .name = "dump",
    .what = "dump (step*/rank*/dump.json)",
    .detect = detect_dump,
    .load = load_dump,
    .write_trenddb = trenddb_write_dump,
    .labels = LABELS_DUMP,
    .tree = 1,
};
