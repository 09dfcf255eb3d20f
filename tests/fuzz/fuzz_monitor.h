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

#endif
