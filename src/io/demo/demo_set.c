/* demo_set: the demo's files in memory (see demo_set.h). */
#include "src/io/demo/demo_set.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

int demo_set_add(struct demo_files *f, const char *path, char *data, size_t len) {
    char *p = strdup(path);
    if (!p || util_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v) != 0) {
        free(p);
        free(data);
        return -1;
    }
    f->v[f->n++] = (struct demo_file){p, data, len};
    return 0;
}

void demo_set_free(struct demo_files *f) {
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].data);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

uint64_t demo_set_key(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}
