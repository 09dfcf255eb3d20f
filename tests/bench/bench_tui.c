/* bench_tui: how fast the real TUI draws, seen from the terminal.
 *
 * Runs `probetop --demo=RANKSxTARGETS` (default 1024 ranks x 5000 targets)
 * in a pty at 200x60 through the libvterm harness and measures, per kind of
 * key, from the moment the key is written:
 *   first byte  - key-to-frame latency (the program reacted),
 *   frame done  - the last byte before the output went quiet (the frame is
 *                 complete on the user's screen),
 *   bytes       - what the frame cost on the wire (matters over SSH).
 * Kinds: full frames (a key that changes every cell of the heat map, and a
 * forced repaint of the whole screen), a small move of the cursor, and an
 * unchanged frame (a key that changes nothing visible).  Also startup time
 * and bytes written while idle.
 *
 * It prints figures and holds them against the TUI's goals: a full frame
 * drawn well within one refresh of a 60 Hz screen, an unchanged frame cheap
 * over SSH, a key answered within a refresh (the limits are printed); it asserts nothing, exit 0
 * unless it could not run (2).  Times include the pty round trip, so they are
 * an upper bound of the program's own work.
 *
 *   bench_tui [--bin PATH] [--size COLSxROWS] [--demo RANKSxTARGETS|pair] [--reps N]
 *
 * --demo pair runs `probetop --demo` (the problem/benchmark pair of
 * src/io/demo/demo_files.h), which opens on the run summary: F2 shows its
 * heat map before the keys are measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen/vt.h"

#define QUIET_MS 25           /* output gap that ends a frame */

struct stats { double v[256]; int n; };

static void add(struct stats *s, double x) { if (s->n < 256) s->v[s->n++] = x; }

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double mean(const struct stats *s) {
    double t = 0;
    for (int i = 0; i < s->n; i++) t += s->v[i];
    return s->n ? t / s->n : 0;
}

static double pct(struct stats *s, double p) {
    if (!s->n) return 0;
    qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp_d);
    int i = (int)(p * (s->n - 1) + 0.5);
    return s->v[i];
}

struct kind {
    const char *name;
    const char *keys[4];      /* cycled through, one per repetition */
    int changes;              /* 1: a frame is expected (wait for it) */
    struct stats first, done, bytes;
    int missing;              /* repetitions with no output at all */
};

/* One key, one frame: returns 0, or -1 when the program is gone. */
static int measure(struct vt *vt, struct kind *k, const char *key) {
    if (vt_wait_idle(vt, QUIET_MS * 2) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    if (k->changes) {
        double deadline = t0 + 2.0;     /* a key that draws nothing counts as "no output" */
        while (vt->bytes_mark == 0 && vt_now() < deadline)
            if (vt_pump(vt, 50) < 0) return -1;
        if (vt_wait_idle(vt, QUIET_MS) < 0) return -1;
    } else {
        /* Nothing may come at all; give a slow program its chance. */
        if (vt_wait_idle(vt, 200) < 0) return -1;
    }
    if (vt->bytes_mark == 0) {
        k->missing++;
        add(&k->bytes, 0);
        return 0;
    }
    add(&k->first, (vt->t_first - t0) * 1e3);
    add(&k->done, (vt->t_last - t0) * 1e3);
    add(&k->bytes, (double)vt->bytes_mark);
    return 0;
}

static void report(struct kind *k) {
    printf("%-34s", k->name);
    if (k->first.n) {
        double m1 = mean(&k->first), md = mean(&k->done);
        printf(" first byte %6.2f ms   frame done %6.2f ms (median %6.2f, p95 %6.2f)",
               m1, md, pct(&k->done, 0.5), pct(&k->done, 0.95));
    } else {
        printf(" %-71s", " no output");
    }
    printf("   %8.0f bytes/frame", mean(&k->bytes));
    if (k->missing) printf("   (%d of %d frames wrote nothing)", k->missing, k->bytes.n);
    printf("\n");
}

int main(int argc, char **argv) {
    const char *bin = getenv("PT_BIN");
    int cols = 200, rows = 60, ranks = 1024, targets = 5000, reps = 20, pair = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bin") && i + 1 < argc) bin = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &cols, &rows) == 2) i++;
        else if (!strcmp(argv[i], "--demo") && i + 1 < argc && !strcmp(argv[i + 1], "pair")) pair = 1, i++;
        else if (!strcmp(argv[i], "--demo") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &ranks, &targets) == 2) i++;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_tui [--bin PATH] [--size COLSxROWS] [--demo RANKSxTARGETS|pair] [--reps N]\n");
            return 2;
        }
    }
    if (!bin) { fprintf(stderr, "bench_tui: set PT_BIN or pass --bin PATH\n"); return 2; }
    if (reps < 1) reps = 1;
    if (reps > 256) reps = 256;

    char demo[64];
    if (pair) snprintf(demo, sizeof demo, "--demo");
    else snprintf(demo, sizeof demo, "--demo=%dx%d", ranks, targets);
    char *args[] = { (char *)bin, demo, NULL };
    struct vt vt;
    double t0 = vt_now();
    if (vt_spawn(&vt, cols, rows, args, NULL) < 0) return 2;
    vt.timeout_ms = 120000;   /* generating the big demo may take a while */

    /* Startup: until the heat map is up and the output has settled (the
     * progress line may come and go before). */
    double t_up = 0;
    while (vt_now() - t0 < 120) {
        if (vt_pump(&vt, 100) < 0) break;
        if (vt.altscreen && strstr(vt_screen_text(&vt), "rank") && vt_wait_idle(&vt, 300) == 0 &&
            strstr(vt_screen_text(&vt), "rank")) {
            t_up = vt.t_last - t0;
            break;
        }
    }
    if (!t_up) {
        fprintf(stderr, "bench_tui: %s %s did not come up\n", bin, demo);
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return 2;
    }

    /* the pair opens on its run summary: the heat map is F2 */
    if (pair && (vt_send(&vt, "<F2>") < 0 || vt_wait_text(&vt, "Heat map", 10000) < 0 || vt_wait_idle(&vt, 300) < 0)) {
        fprintf(stderr, "bench_tui: %s %s: no heat map on F2\n", bin, demo);
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return 2;
    }
    printf("probetop TUI benchmark: %s, %dx%d terminal, %d reps per kind\n", demo, cols, rows, reps);
    printf("%-34s %.1f ms to the first complete frame, %llu bytes\n", "startup", t_up * 1e3,
           (unsigned long long)vt.bytes_total);

    vt_mark(&vt);
    vt_pump(&vt, 1000);
    while (vt_pump(&vt, 0) > 0) {}
    printf("%-34s %llu bytes in 1 s\n", "idle (no key)", (unsigned long long)vt.bytes_mark);

    /* Keys per kind (see `?`): x flips gradient/segmented colouring and
     * ]/[ move to the next/previous step, so every heat-map cell gets a new
     * colour; G/g jump to the last/first rows (a new page of labels and cells);
     * C-l repaints the whole screen from scratch; j/k move the cursor one
     * row; g when already at the top changes nothing. */
    struct kind kinds[] = {
        { "full frame: colour mode (x)", { "x" }, 1, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
        { "full frame: step (] / [)", { "]", "[" }, 1, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
        { "full frame: jump (G / g)", { "G", "g" }, 1, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
        { "full repaint (C-l)", { "<C-l>" }, 1, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
        { "cursor move (j / k)", { "j", "k" }, 1, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
        { "unchanged frame (g at top)", { "g" }, 0, {{0}, 0}, {{0}, 0}, {{0}, 0}, 0 },
    };
    int nk = (int)(sizeof kinds / sizeof kinds[0]);
    if (vt_send(&vt, "g") < 0 || vt_wait_idle(&vt, 200) < 0) goto gone;
    for (int i = 0; i < nk; i++) {
        struct kind *k = &kinds[i];
        int nkeys = 0;
        while (nkeys < 4 && k->keys[nkeys]) nkeys++;
        for (int r = 0; r < reps; r++)
            if (measure(&vt, k, k->keys[r % nkeys]) < 0) goto gone;
    }
    for (int i = 0; i < nk; i++) report(&kinds[i]);

    /* The goals: the slowest kind of full frame, the unchanged frame, and
     * the cursor move as the typical key. */
    double full = 0;
    for (int i = 0; i < 4; i++)
        if (kinds[i].done.n && mean(&kinds[i].done) > full) full = mean(&kinds[i].done);
    double unchanged = mean(&kinds[5].bytes);
    double latency = mean(&kinds[4].done);
    printf("\ngoals:\n");
    printf("  full frame      < 5 ms     measured %7.2f ms   %s\n", full, full < 5 ? "met" : "MISSED");
    printf("  unchanged frame < 2 KiB    measured %7.0f B    %s\n", unchanged, unchanged < 2048 ? "met" : "MISSED");
    printf("  key-to-frame    < 16 ms    measured %7.2f ms   %s\n", latency, latency < 16 ? "met" : "MISSED");

    vt_send(&vt, "q");
    int st = 0;
    if (vt_wait_exit(&vt, 5000, &st) < 0) fprintf(stderr, "bench_tui: q did not quit\n");
    vt_close(&vt);
    return 0;
gone:
    fprintf(stderr, "bench_tui: the program stopped answering\n");
    vt_dump(&vt, stderr);
    vt_close(&vt);
    return 2;
}
