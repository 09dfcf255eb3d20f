/* bench_tui_flow: key to frame of the data-flow walk (probetop-rules(7),
 * DATA FLOW) in the real binary at 200x60, measured as bench_tui does
 * (first byte after the key, last byte before the output goes quiet):
 * `<` on node NAME of a dump's first (step, rank), Backspace back, and
 * `j` for comparison.  The graph's index is built when the detail pane
 * first draws a node of it (at :node); the first `<` is printed apart.
 *   bench_tui_flow DUMP NAME [RUNS]     (PT_BIN = the binary) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen/vt.h"

#define QUIET_MS 25

struct acc { double first, done; int n; };

/* One key: adds its first-byte and frame-done times; -1 when nothing came. */
static int measure(struct vt *vt, const char *key, struct acc *a) {
    if (vt_wait_idle(vt, QUIET_MS * 2) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now(), deadline = t0 + 5.0;
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < deadline)
        if (vt_pump(vt, 50) < 0) return -1;
    if (vt_wait_idle(vt, QUIET_MS) < 0 || vt->bytes_mark == 0) return -1;
    a->first += (vt->t_first - t0) * 1e3;
    a->done += (vt->t_last - t0) * 1e3;
    a->n++;
    return 0;
}

static void say(const char *what, const struct acc *a) {
    printf("%-40s first byte %6.2f ms   frame done %6.2f ms  (%d)\n", what, a->n ? a->first / a->n : 0,
           a->n ? a->done / a->n : 0, a->n);
}

int main(int argc, char **argv) {
    if (argc < 3 || !vt_bin()) {
        fprintf(stderr, "usage: PT_BIN=probetop bench_tui_flow DUMP NAME [RUNS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 10;
    const char *args[] = {argv[1], NULL};
    struct vt vt;
    if (vt_spawn_app(&vt, 200, 60, args, NULL) != 0) return 1;
    vt.timeout_ms = 60000;
    char node[1200], at[1300];
    snprintf(node, sizeof node, ":node %s<Enter>", argv[2]);
    snprintf(at, sizeof at, "at: %s", argv[2]);
    int ok = vt_wait_text(&vt, "Heat map", 60000) == 0;
    if (ok) vt_send(&vt, "<F6>");
    ok = ok && vt_wait_text(&vt, "DefaultModel", 60000) == 0;
    if (ok) vt_send(&vt, node);
    ok = ok && vt_wait_text(&vt, at, 60000) == 0;
    struct acc cold = {0}, up = {0}, back = {0}, j = {0};
    ok = ok && measure(&vt, "<lt>", &cold) == 0 && vt_has(&vt, "producer of ");
    for (int i = 0; ok && i < runs; i++)
        ok = measure(&vt, "<BS>", &back) == 0 && measure(&vt, "<lt>", &up) == 0 && vt_has(&vt, "producer of ") &&
             measure(&vt, "j", &j) == 0 && measure(&vt, "k", &j) == 0;
    vt_send(&vt, "q");
    vt_wait_exit(&vt, 10000, NULL);
    vt_close(&vt);
    if (!ok) {
        fprintf(stderr, "bench_tui_flow: no producer shown for %s\n", argv[2]);
        return 1;
    }
    say("< the first time", &cold);
    say("< to the producer", &up);
    say("Backspace back", &back);
    say("j / k (for comparison)", &j);
    return 0;
}
