/* test_vt_curves_live: the curves pane on a training log being written
 * (probetop(1), FOLLOW MODE; issue 22).  probetop --follow starts on a
 * Megatron log of steps 1-5 (alone, and as the problem run against a
 * benchmark CSV); the test appends steps 6 and 7 and half of step 8's
 * line: within 2 s (stretched for sanitizers) the x axis ends at step 7,
 * the half line is "being written", never an error; once the line is
 * whole, step 8 is there with its value.  test_events: the same with a
 * folder of TensorBoard event files (tests/tfevents_write.h), records
 * appended and one cut in two.  Each wait is for a state on screen; one
 * that never comes fails the test. */
#include "pt_test.h"
#include "tfevents_write.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static void line(char *buf, size_t size, int step, double loss) {
    snprintf(buf, size, " [2024-05-10 12:00:%02d] iteration %8d/     100 | consumed samples: %12d | lm loss: %.6E | loss scale: 65536.0 | "
             "grad norm: 1.%03d | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
             step, step, step * 128, loss, step);
}

static int append(const char *path, const char *text) {
    FILE *f = fopen(path, "a");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* The x axis (the row starting "step") ends with the step last. */
static bool axis_ends(struct vt *vt, int last) {
    char want[32];
    snprintf(want, sizeof want, " %d", last);
    for (int r = 0; r < vt->rows; r++) {
        const char *t = vt_row_text(vt, r);
        size_t n = strlen(t), w = strlen(want);
        if (!strncmp(t, "step", 4) && n > w && !strcmp(t + n - w, want)) return true;
    }
    return false;
}

static bool said(struct vt *vt, const char *text) {
    int st = vt_status_row(vt);
    return vt_row_has(vt, st, text) || vt_row_has(vt, st + 1, text);
}

static double scale(void) {
    const char *s = getenv("PT_TIMEOUT_SCALE");
    double k = s ? atof(s) : 1;
    return k > 0 ? k : 1;
}

static void live(int with_bench) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_tmpdir(with_bench ? "pair" : "alone");
    if (!dir) SKIP("no temp dir");
    char log[1200], bench[1200], l[512];
    snprintf(log, sizeof log, "%s/train.log", dir);
    snprintf(bench, sizeof bench, "%s/bench.csv", dir);
    FILE *f = fopen(log, "w"), *b = fopen(bench, "w");
    if (!f || !b) { CHECK(!"write"); if (f) fclose(f); if (b) fclose(b); return; }
    double loss = 8.0;
    for (int s = 1; s <= 5; s++, loss *= 0.9) { line(l, sizeof l, s, loss); fputs(l, f); }
    fclose(f);
    fprintf(b, "step,lm loss\n");
    double bl = 8.0;
    for (int s = 1; s <= 10; s++, bl *= 0.9) fprintf(b, "%d,%.6f\n", s, bl);
    fclose(b);

    struct vt vt;
    const char *args[] = {"--follow", "--ascii", log, with_bench ? bench : NULL, NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, 80, 24, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves") && vt_has(&vt, "lm loss"));
    VT_WAIT(&vt, axis_ends(&vt, with_bench ? 10 : 5));
    if (with_bench) {
        vt_send(&vt, "G");
        VT_WAIT(&vt, said(&vt, "step 10  problem -  bench"));
    }
    /* two lines and a half appended: they are on screen within 2 s */
    char more[2048] = "";
    for (int s = 6; s <= 7; s++, loss *= 0.9) { line(l, sizeof l, s, loss); strcat(more, l); }
    line(l, sizeof l, 8, loss);
    size_t half = strlen(l) / 2;
    size_t m = strlen(more);
    memcpy(more + m, l, half);
    more[m + half] = '\0';
    CHECK_INT(append(log, more), 0);
    int keep = vt.timeout_ms;
    vt.timeout_ms = (int)(2000 * scale());
    if (with_bench) {
        vt_send(&vt, "g");
        VT_WAIT(&vt, said(&vt, "step 1  problem 8"));
        for (int i = 0; i < 6; i++) vt_send(&vt, "l");   /* one step a key: to step 7 */
        VT_WAIT(&vt, said(&vt, "step 7  problem 4.25153"));
    } else {
        VT_WAIT(&vt, axis_ends(&vt, 7));
    }
    vt.timeout_ms = keep;
    CHECKV(&vt, !vt_has(&vt, "error"));
    CHECKV(&vt, !vt_has(&vt, "cut short"));
    /* the rest of the line: step 8 whole */
    CHECK_INT(append(log, l + half), 0);
    if (with_bench) {
        vt_send(&vt, "l");
        VT_WAIT(&vt, said(&vt, "step 8  problem 3.82638"));
    } else {
        VT_WAIT(&vt, axis_ends(&vt, 8));
        vt_send(&vt, "G");
        VT_WAIT(&vt, said(&vt, "step 8  lm loss 3.82638"));
    }
    CHECKV(&vt, vt_has(&vt, "live"));
    vt_send(&vt, "q");
    vt_close(&vt);
}

static void test_log_alone(void) { live(0); }
static void test_log_against_bench(void) { live(1); }

static int append_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "ab");
    if (!f) return -1;
    size_t k = fwrite(p, 1, n, f);
    return fclose(f) == 0 && k == n ? 0 : -1;
}

static void test_events(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_tmpdir("events");
    if (!dir) SKIP("no temp dir");
    char run[1200], file[1300];
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(file, sizeof file, "%s/events.out.tfevents.1700000000.host", run);
    if (mkdir(run, 0755) != 0) { CHECK(!"mkdir"); return; }
    struct tfw w = {0}, more = {0}, last = {0};
    tfw_event(&w, 0, NULL, 0, "brain.Event:2");
    double loss = 8.0;
    for (int s = 1; s <= 5; s++, loss *= 0.9) {
        struct tfw_val v = {"lm loss", TFW_SIMPLE, loss};
        tfw_event(&w, s, &v, 1, NULL);
    }
    CHECK(tfw_save(file, &w) == 0);
    struct vt vt;
    const char *args[] = {"--follow", "--ascii", run, NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, 80, 24, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves") && vt_has(&vt, "lm loss"));
    VT_WAIT(&vt, axis_ends(&vt, 5));
    for (int s = 6; s <= 7; s++, loss *= 0.9) {
        struct tfw_val v = {"lm loss", TFW_SIMPLE, loss};
        tfw_event(&more, s, &v, 1, NULL);
    }
    struct tfw_val v8 = {"lm loss", TFW_SIMPLE, loss};
    tfw_event(&last, 8, &v8, 1, NULL);
    size_t half = last.n / 2;
    CHECK_INT(append_bytes(file, more.b, more.n), 0);
    CHECK_INT(append_bytes(file, last.b, half), 0);
    int keep = vt.timeout_ms;
    vt.timeout_ms = (int)(2000 * scale());
    VT_WAIT(&vt, axis_ends(&vt, 7));
    vt.timeout_ms = keep;
    CHECKV(&vt, !vt_has(&vt, "error"));
    CHECK_INT(append_bytes(file, last.b + half, last.n - half), 0);
    VT_WAIT(&vt, axis_ends(&vt, 8));
    vt_send(&vt, "G");
    VT_WAIT(&vt, said(&vt, "step 8  lm loss 3.82638"));
    vt_send(&vt, "q");
    vt_close(&vt);
    free(w.b);
    free(more.b);
    free(last.b);
}

int main(void) {
    RUN(test_log_alone);
    RUN(test_log_against_bench);
    RUN(test_events);
    PT_DONE();
}
