/* fuzz_monitor.h: what the monitor harnesses (v1 and v2 CSVs) share: the
 * --mapping they read with, and the walk over what a parse left: the step
 * axis both ways (micro steps on and off) and every row's step. */
#ifndef PT_FUZZ_MONITOR_H
#define PT_FUZZ_MONITOR_H

#include "fuzz.h"

#include "src/io/load.h"
#include "src/io/monitor/read_monitor.h"

/* --mapping layers:blocks, in storage the caller owns */
struct fuzz_mapping { char from0[8], to0[8]; char *from[1], *to[1]; struct mapping map; };

static void fuzz_mapping_init(struct fuzz_mapping *m) {
    memcpy(m->from0, "layers", 7);
    memcpy(m->to0, "blocks", 7);
    m->from[0] = m->from0;
    m->to[0] = m->to0;
    m->map = (struct mapping){m->from, m->to, 1};
}

static void fuzz_monitor_walk(struct monitor_data *md) {
    for (int micro = 0; micro < 2; micro++) {
        struct monitor_steps st;
        struct pt_error e;
        if (monitor_steps(md, micro, &st, &e) != 0) continue;
        for (size_t i = 0; i < md->nfiles; i++)
            for (size_t r = 0; r < md->files[i].nrows; r++) (void)monitor_row_step(&st, &md->files[i].rows[r]);
        monitor_steps_free(&st);
    }
}

/* The bytes as a reused read buffer holds them (mon_cache.c: a thread's
 * files read one after another into one buffer): the NUL at size, then
 * an earlier, longer file's bytes (a row of its own, numbers, no NUL). */
static inline char *fuzz_stale_copy(const uint8_t *data, size_t size) {
    static const char old[] = "1,layers.0.x,3,0,7.5,1e300\nname,max\n0,y,1,2\n";
    char *s = malloc(size + sizeof old + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    memcpy(s + size + 1, old, sizeof old - 1);
    s[size + sizeof old] = 'z';
    return s;
}

/* Two parses of the same bytes (a fresh buffer, a stale one) gave the same:
 * files, rows, names, steps and values (by bits); aborts otherwise. */
static void fuzz_monitor_same(const struct monitor_data *a, const struct monitor_data *b) {
    if (a->nfiles != b->nfiles) abort();
    for (size_t i = 0; i < a->nfiles; i++) {
        const struct monitor_file *x = &a->files[i], *y = &b->files[i];
        if (x->nrows != y->nrows || x->nval != y->nval || x->valmask != y->valmask || x->metric != y->metric) abort();
        for (size_t r = 0; r < x->nrows; r++) {
            const struct monitor_row *p = &x->rows[r], *q = &y->rows[r];
            if (p->vpp != q->vpp || p->step != q->step || p->micro != q->micro || p->present != q->present ||
                strcmp(monitor_name(a, p), monitor_name(b, q)) != 0)
                abort();
        }
        if (x->nrows && memcmp(x->vals, y->vals, x->nrows * (size_t)x->nval * sizeof *x->vals) != 0) abort();
    }
}

#endif
