/* cmd_overflow_follow: `probetop overflow --follow` (see the .c file). */
#ifndef PT_CMD_OVERFLOW_FOLLOW_H
#define PT_CMD_OVERFLOW_FOLLOW_H

#include "model/cube/dataset.h"

struct ovf_follow_opts {
    const char *path;
    int min_level;     /* --level: entries below it are not printed */
    int fail_on;       /* --fail-on */
    double idle;       /* --idle SECONDS; 0 = until a signal */
    int partial_ok;    /* --partial-ok: files not read whole at the end do not stop the gate */
};

/* Follows path until SIGINT/SIGTERM or --idle; returns the exit code. */
int ovf_follow_run(const struct ovf_follow_opts *fo, const struct load_opts *lo);

#endif
