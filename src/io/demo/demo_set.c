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

double demo_set_noise(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    uint64_t z = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                 (c + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull ^ d * 0xd6e8feb86659fd39ull;
    z ^= z >> 30; z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27; z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

uint64_t demo_set_key(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}
