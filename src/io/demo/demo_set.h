/* demo_set: a set of files in memory (path, bytes), what the demo's
 * generators (src/io/demo/demo_files.c, demo_dump.c) fill, and the fixed
 * hash their values come from. */
#ifndef PT_DEMO_SET_H
#define PT_DEMO_SET_H

#include <stddef.h>
#include <stdint.h>

struct demo_file {
    char *path;        /* relative, '/'-separated */
    char *data;
    size_t len;
};

struct demo_files {
    struct demo_file *v;
    size_t n, cap;
};

/* Adds the file path holding data (taken: freed on failure too).  0, or
 * -1 without memory. */
int demo_set_add(struct demo_files *f, const char *path, char *data, size_t len);
void demo_set_free(struct demo_files *f);

/* The FNV-1a hash of s, a key for demo_noise (model/cube/demo.h). */
uint64_t demo_set_key(const char *s);

#endif
