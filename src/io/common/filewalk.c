/* filewalk: see filewalk.h. */
#include "src/io/common/filewalk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"
#include "model/util/util.h"

static int walk(const struct filewalk *w, const char *dir, int depth, struct filewalk_list *out, struct dataset *ds,
                int *budget, struct pt_error *err) {
    int probe = budget != NULL;
    if (probe && --*budget < 0) return 0;
    size_t n;
    char **names = fs_list_dir(dir, 0, &n);
    if (!names) {
        if (probe) return 0;
        if (depth == 0) return pt_errorf(err, "%s: %s", dir, strerror(errno));
        /* a sub-folder that cannot be listed is left out, as the dump and
         * monitor readers leave out a rank folder they cannot read */
        const char *why = strerror(errno);
        return dataset_warn(ds, "%s: cannot list: %s: skipped", dir, why) | dataset_skip(ds, dir) ? pt_errorf(err, "out of memory") : 0;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *p = fs_join(dir, names[i]);
        if (!p) { rc = pt_errorf(err, "out of memory"); break; }
        struct stat st;
        int took = 0;
        if (stat(p, &st) != 0) {
            /* gone since the listing: nothing to take */
        } else if (S_ISDIR(st.st_mode)) {
            if (depth < w->max_depth && !w->skip_dir(names[i])) rc = walk(w, p, depth + 1, out, ds, budget, err);
        } else if (S_ISREG(st.st_mode)) {
            int a = w->accept(names[i], p, &st, budget);
            if (a > 0) {
                if (out->n >= w->max_files) rc = pt_errorf(err, "%s: more than %zu %s", dir, w->max_files, w->what);
                else if (UTIL_PUSH(out->v, out->n, out->cap)) rc = pt_errorf(err, "out of memory");
                else {
                    out->v[out->n++] = p;
                    took = 1;
                }
            } else if (a < 0 && !probe && ds && depth == 0 && dataset_skip(ds, p) != 0) {
                rc = pt_errorf(err, "out of memory");
            }
        }
        if (!took) free(p);
        if (probe && (out->n || *budget < 0)) break;
    }
    fs_free_list(names, n);
    return rc;
}

int filewalk_run(const struct filewalk *w, const char *dir, struct filewalk_list *out, struct dataset *ds,
                 int *budget, struct pt_error *err) {
    return walk(w, dir, 0, out, ds, budget, err);
}

void filewalk_list_free(struct filewalk_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}
