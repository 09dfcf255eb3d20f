/* test_vt_shots: the pictures in screenshots/ (the README shows them),
 * made by driving the real binary, so `cmake --build build --target
 * screenshots` regenerates them after a UI change.  Each row of shots[] is one picture: size, arguments,
 * environment, the keys that set the scene, and a text that is on screen
 * only once the scene is set (the picture is taken on the settled screen
 * after it appears; a missing text fails the test instead of writing a
 * wrong picture).  Adding a view's screenshot = adding a row.
 *
 * Pictures go to $PT_SHOTS: ctest sets it to screenshots/ in the build
 * tree, the screenshots target to the checkout's screenshots/; without it
 * the scenes are still checked, nothing is written. */
#include "pt_test.h"
#include "screen/vt.h"

struct shot {
    const char *name;            /* screenshots/NAME.svg */
    const char *title;           /* the window title in the picture */
    int cols, rows;
    const char *args[4];
    const char *env[3];
    const char *keys[16];        /* sent in order, each once the screen settled */
    const char *want;            /* on screen when the scene is set */
};

#define DEMO { "--demo=trend", NULL }
/* the program as it starts: with its key bar (the harness hides it) */
#define KEYBAR "PROBETOP_KEYBAR"
#define BURST_KEYS ":step 9<Enter>", ":rank 5<Enter>"

static const struct shot shots[] = {
    { "heatmap", "probetop --demo=trend: heat map at step 9, the NaN burst on rank 5", 120, 40, DEMO, { KEYBAR, NULL },
      { BURST_KEYS, ":goto layers.5.mlp.linear_fc2.RowParallelLinear.output<Enter>", NULL },
      "step 9  rank 5  forward/norm = +Inf" },
    { "heatmap-rank", "probetop --demo=trend: rank 5 over the steps (d): the burst spreads", 120, 40, DEMO, { KEYBAR, NULL },
      { BURST_KEYS, "d", ":goto layers.4.mlp.linear_fc1.ColumnParallelLinear.output<Enter>", NULL },
      "x step (16)" },
    { "segmented", "probetop --demo=trend: segmented (3-sigma) colours (x)", 120, 40, DEMO, { KEYBAR, NULL },
      { ":step 3<Enter>", "x", NULL }, "segmented" },
    { "linechart", "probetop --demo=trend: lines over the steps (Enter): a drifting layer", 120, 40, DEMO, { KEYBAR, NULL },
      { BURST_KEYS, ":goto layers.2.self_attention.linear_proj.RowParallelLinear.output<Enter>", "<Enter>",
        ":goto layers.2.self_attention.linear_proj.RowParallelLinear.input<Enter>", "<Enter>",
        ":goto layers.6.input_layernorm<Enter>", "<Enter>", "-", "-", NULL },
      "3 lines" },
    { "help", "probetop: ? shows every key and command", 100, 40, DEMO, { KEYBAR, NULL }, { "?", NULL }, "next metric" },
    { "small", "probetop --demo=trend at 40x12", 40, 12, DEMO, { KEYBAR, NULL },
      { BURST_KEYS, ":goto layers.6.input_layernorm<Enter>", NULL }, "= NaN" },
    { "ascii", "LANG=C probetop --demo=trend: ASCII only", 100, 30, DEMO, { "LANG=C", KEYBAR, NULL },
      { BURST_KEYS, ":goto layers.6.input_layernorm<Enter>", "<Enter>", NULL }, "1 line" },
    { "no-color", "NO_COLOR=1 probetop --demo=trend", 100, 30, DEMO, { "NO_COLOR=1", KEYBAR, NULL },
      { BURST_KEYS, ":goto layers.6.input_layernorm<Enter>", NULL }, "= NaN" },
};
#define NSHOTS (sizeof shots / sizeof shots[0])

static void take(const struct shot *s) {
    struct vt vt;
    fprintf(stderr, "   %s\n", s->name);
    CHECK_INT(vt_spawn_app(&vt, s->cols, s->rows, s->args, s->env), 0);
    /* The first frame, then each key on a settled screen. */
    VT_WAIT(&vt, vt.altscreen && vt_row_text(&vt, 0)[0] != 0);
    for (int i = 0; s->keys[i]; i++) {
        vt_mark(&vt);
        vt_send(&vt, s->keys[i]);
        /* A key may change nothing on screen; give it 2 s to answer. */
        while (vt.bytes_mark == 0 && vt_now() - vt.t_mark < 2.0 && vt_pump(&vt, 50) >= 0) {}
        vt_settle(&vt);
    }
    VT_WAIT(&vt, vt_find(&vt, s->want, NULL, NULL));
    bool ready = vt_find(&vt, s->want, NULL, NULL);
    CHECK(ready);
    if (!ready) {
        fprintf(stderr, "%s: \"%s\" never appeared\n", s->name, s->want);
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return;
    }
    int rc = vt_shot(&vt, s->name, s->title);
    CHECK(rc >= 0);
    if (rc == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.svg", getenv("PT_SHOTS"), s->name);
        struct stat st;
        CHECK(stat(path, &st) == 0 && st.st_size > 1000);
    }
    vt_close(&vt);
}

static void test_shots(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!getenv("PT_SHOTS")) fprintf(stderr, "PT_SHOTS not set: checking the scenes only\n");
    for (size_t i = 0; i < NSHOTS; i++) take(&shots[i]);
}

int main(void) {
    RUN(test_shots);
    PT_DONE();
}
