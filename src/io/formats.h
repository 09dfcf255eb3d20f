/* formats: the reader table, one row per input format.
 *
 * Every trend input probetop reads (a dump, a monitor CSV tree, a
 * .trend.db) is one `struct formats_row` row of formats_rows[] in
 * formats.c, its functions in the format's own reader file, so that a new
 * format is one file and one row, and nothing else changes.  load.c iterates
 * the table to detect and to load; `--format NAME` looks names up in it;
 * `info` describes the dataset the row filled; `data2db` calls the rows
 * that have a .write_trenddb hook.  No view and no command switches on a
 * format: a view asks the dataset (ds->labels) and the cube.
 *
 * Adding an input format (monitor_v2 CSV trees, profiler traces...):
 *   1. one new file src/io/FAMILY/read_X.c (FAMILY: the folder of its format
 *      family, dump, monitor, trenddb...; a new folder for a new family) with
 *        - detect(path, st): 0 = not mine, 100 = sure, 1..99 = a guess
 *          (cheap, never fails, reads at most a few bytes or a listing);
 *        - load(path, o, ds, err): fills ds->cube (owned by ds), and what
 *          applies of ds->files_read, bytes_read, skipped, warnings
 *          (dataset_warn/dataset_skip), framework/level/task, micro_step,
 *          rankdirs and ovf/ovf_levels (overflow levels, if the format
 *          has them), dbfiles, source; it may refine ds->labels (preset
 *          from .labels) -- load_dataset derives the labels afterwards;
 *          bad input is a warning or an error naming file and place;
 *          o->cancel is honoured in long loops;
 *        - optionally write_trenddb(...) for `data2db` (see write_trenddb.h:
          a reader whose rows map onto msProbe's monitor metrics hands
          trenddb_write_monitor_src its read, which streams the rows to
          the writer as they are parsed);
        - .labels: LABELS_DUMP or LABELS_MONITOR (names of another shape
          need their rules in model/cube/names.c first: a model change, not a
          format switch);
 *        - the row: const struct formats_row formats_row_X = {...};
 *   2. one line `&formats_row_X,` (and its extern) in formats.c, placed
 *      where ties in detection should fall (earlier rows win a tie);
 *   3. its paragraph man/probetop.1.format.NAME (man/assemble.sh lists
 *      the rows under --format in table order, and fails on a row without
 *      one), and its section in probetop-formats(5).
 * Nothing else: no enum, no switch, no view, no command changes. */
#ifndef PT_FORMATS_H
#define PT_FORMATS_H

#include <stddef.h>
#include <sys/stat.h>

#include "model/err.h"
#include "model/cube/names.h"   /* enum label_rules */

struct dataset;
struct load_opts;
struct tdb_result;

struct formats_row {
    const char *name;    /* `--format NAME`, `info`'s "format" (stable: scripts use it) */
    const char *what;    /* for "expected ...": "dump (stepS/rankR/dump.json)", no article */
    /* How sure path (stat'ed as st: a file or a folder) is of this format:
     * 0 no, 1..99 a fallback, 100 sure.  The highest score wins. */
    int (*detect)(const char *path, const struct stat *st);
    /* Reads path into ds (see the checklist above).  0, or -1 with err. */
    int (*load)(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err);
    /* `data2db`: writes outdir/<kind>_data.trend.db from data (NULL: the
     * format is no data2db input).  Notes go to ds; -1 with err. */
    int (*write_trenddb)(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                         struct tdb_result *res, struct pt_error *err);
    enum label_rules labels;   /* the label rules of its names (ds->labels before load) */
    int tree;                  /* rank folders may hold construct.json: the app builds the
                                  model tree beside the trend (build mode) */
};

extern const struct formats_row *const formats_rows[];
extern const size_t formats_nrows;

/* The row named name, or NULL. */
const struct formats_row *formats_find(const char *name);
/* `--format` values: "auto" (*out = NULL) or a row's name.  0, or -1. */
int formats_parse(const char *s, const struct formats_row **out);
/* A row's name; "auto" for NULL. */
const char *formats_name(const struct formats_row *f);
/* The row that claims path most surely (NULL: none, or path unreadable). */
const struct formats_row *formats_detect(const char *path);
/* The names (data2db_only: of rows with write_trenddb) as "a, b or c" into
 * buf, for messages.  Returns buf. */
char *formats_names(char *buf, size_t size, int data2db_only);
/* The rows' .what as "a dump (...), a monitor folder (...) or a .trend.db"
 * (article "a " before each when article is set).  Returns buf. */
char *formats_whats(char *buf, size_t size, int data2db_only, int article);

#endif
