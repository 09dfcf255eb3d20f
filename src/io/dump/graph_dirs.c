/* graph_dirs: the rank folders a compare or a graph read works on: a
 * dump.json file, a rank folder, a step folder or a whole run, each as
 * (step, rank, folder), and how the folders of two runs pair up.
 * probetop-formats(5), DUMP FOLDERS. */
#include "src/io/dump/read_graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/fs.h"
#include "model/util/rankdirs.h"
#include "model/util/util.h"
#include "src/io/dump/read_dump.h"

static int add_dir(struct graph_dirs *d, int32_t step, int32_t rank, const char *dir) {
    struct graph_dir *nv = realloc(d->v, (d->n + 1) * sizeof *nv);
    if (!nv) return -1;
    d->v = nv;
    d->v[d->n].step = step;
    d->v[d->n].rank = rank;
    d->v[d->n].dir = strdup(dir);
    if (!d->v[d->n].dir) return -1;
    d->n++;
    return 0;
}

/* The rank folders the one scanner (model/util/rankdirs.h) found, by the
 * same rule as every other reader: a procN beside rankN has the same number
 * here as in `info`. */
static int take_dirs(struct graph_dirs *d, struct util_rankdirs *u) {
    int rc = 0;
    for (size_t i = 0; i < u->n && rc == 0; i++) rc = add_dir(d, u->v[i].step, u->v[i].rank, u->v[i].dir);
    util_rankdirs_free(u);
    return rc;
}

/* The first folder the scanner passed over, for the message when none is left. */
struct first_note { size_t n; char text[600]; };

static int keep_first(void *ctx, const char *path, const char *why, int skipped) {
    struct first_note *fn = ctx;
    if (skipped && !fn->n++) snprintf(fn->text, sizeof fn->text, "%s: %s", path, why);
    return 0;
}

int graph_scan(const char *path, struct graph_dirs *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    char p[4200];
    /* numbers come from the path where it has them: step3/rank5 is step 3, rank 5 */
    int32_t ps, pr;
    if (S_ISREG(st.st_mode)) {
        snprintf(p, sizeof p, "%s", path);
        char *slash = strrchr(p, '/');
        if (slash) *slash = '\0'; else snprintf(p, sizeof p, ".");
        dump_path_numbers(p, &ps, &pr);
        if (add_dir(out, ps, pr, path) != 0) return pt_errorf(err, "out of memory");
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) return pt_errorf(err, "%s: not a folder or a dump.json file", path);
    snprintf(p, sizeof p, "%s/dump.json", path);
    if (fs_is_file(p)) {
        dump_path_numbers(path, &ps, &pr);
        if (add_dir(out, ps, pr, path) != 0) return pt_errorf(err, "out of memory");
        return 0;
    }
    struct util_rankdirs u = {0};
    struct first_note fn = {0};
    int steps = util_scan_root(path, &u, keep_first, &fn);
    if (steps == 0) {   /* a step folder: its number is in its name */
        char *rp = realpath(path, NULL), *base = rp ? strrchr(rp, '/') : NULL;
        long s = base ? util_num_after(base + 1, "step") : -1;
        free(rp);
        if (util_scan_step(path, (int32_t)(s < 0 ? 0 : s), &u, keep_first, &fn) != 0) steps = -1;
    }
    if (steps < 0 || take_dirs(out, &u) != 0) {
        util_rankdirs_free(&u);
        graph_dirs_free(out);
        return pt_errorf(err, "out of memory");
    }
    if (out->n == 0) {
        graph_dirs_free(out);
        if (fn.n)
            return pt_errorf(err, "%s: no dump found: %zu rank folder(s) skipped, the first %s", path, fn.n, fn.text);
        return pt_errorf(err, "%s: no dump found (expected dump.json, rankN/procN folders, or stepN folders)", path);
    }
    return 0;   /* in step, then rank order, as the scanner lists them */
}

static int one_step(const struct graph_dirs *d) {
    for (size_t i = 1; i < d->n; i++)
        if (d->v[i].step != d->v[0].step) return 0;
    return 1;
}

long graph_pair(const struct graph_dirs *a, const struct graph_dirs *b, size_t i) {
    if (a->n == 1 && b->n == 1) return 0;   /* two rank folders or files: the user paired them */
    int any_step = one_step(a) && one_step(b);   /* run/step0 against run/step1 */
    for (size_t j = 0; j < b->n; j++)
        if (b->v[j].rank == a->v[i].rank && (any_step || b->v[j].step == a->v[i].step)) return (long)j;
    return -1;
}

void graph_dirs_free(struct graph_dirs *d) {
    for (size_t i = 0; i < d->n; i++) free(d->v[i].dir);
    free(d->v);
    memset(d, 0, sizeof *d);
}
