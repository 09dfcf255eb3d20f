/* test_vt_export: `:export FILE.svg` on the screen a user sees: `probetop
 * --demo=trend` at 80x24 written as a picture that parses (tests/svg_check.h), holds
 * the heat map's title and the colours of its cells as libvterm shows them,
 * the same with --ascii and NO_COLOR, and a path that cannot be written is
 * a message in the status line and no file. */
#include "pt_test.h"
#include "screen/vt.h"
#include "svg_check.h"

#include <vterm.h>

#include <sys/wait.h>
#include <unistd.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *const demo_args[] = { "--demo=trend", NULL };

static void quit(struct vt *vt) {
    vt_send(vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The xterm colour (what probetop chose, and what the picture shows) of a
 * colour libvterm shows as rgb: its palette index, then xterm's value of
 * it (the 6x6x6 cube and the grey ramp; libvterm's own cube differs).
 * 0 when rgb is no cube or grey colour of libvterm's palette. */
static uint32_t xterm_of(struct vt *vt, uint32_t rgb, int *index) {
    VTermState *st = vterm_obtain_state(vt->term);
    for (int i = 16; i < 256; i++) {
        VTermColor c;
        vterm_state_get_palette_color(st, i, &c);
        vterm_state_convert_color_to_rgb(st, &c);
        if ((((uint32_t)c.rgb.red << 16) | ((uint32_t)c.rgb.green << 8) | c.rgb.blue) != rgb) continue;
        *index = i;
        if (i >= 232) { uint32_t g = (uint32_t)(8 + 10 * (i - 232)); return g << 16 | g << 8 | g; }
        static const uint32_t lv[6] = {0, 95, 135, 175, 215, 255};
        int k = i - 16;
        return lv[k / 36] << 16 | lv[(k / 6) % 6] << 8 | lv[k % 6];
    }
    *index = -1;
    return 0;
}

/* Parses the file at path into c; 0 when it is there and well-formed. */
static int load(const char *path, struct svg_check *c) {
    char *s = pt_slurp(path);
    if (!s) { fprintf(stderr, "   no file %s\n", path); return -1; }
    int rc = svg_check(c, s, strlen(s));
    if (rc) fprintf(stderr, "   %s not well-formed: %s\n", path, c->why);
    free(s);
    return rc;
}

static void export_demo(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("vt_export");
    if (!dir) SKIP("no temporary folder");
    char path[1200], keys[1400];
    snprintf(path, sizeof path, "%s/heat map.svg", dir);    /* a blank in the name: the rest of the line */
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, demo_args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL) && vt_row_has(&vt, 0, "forward/norm"));
    snprintf(keys, sizeof keys, ":export %s<Enter>", path);
    vt_send(&vt, keys);
    VT_WAIT(&vt, vt_find(&vt, "wrote", NULL, NULL));
    struct svg_check c;
    CHECK_INT(load(path, &c), 0);
    if (c.text) {
        CHECK_CONTAINS(c.text, "Heat map");
        CHECK_CONTAINS(c.text, "forward/norm");
        /* the screen, not the prompt the command was typed into */
        CHECK(!strstr(c.text, ":export"));
        CHECK(!strstr(c.text, "Esc cancels"));
        /* every cell colour the terminal shows above the status line is in
         * the picture (the status line changed since: "wrote ...") */
        int cells = 0, missing = 0;
        for (int r = 0; r < vt.rows - 2; r++)
            for (int col = 0; col < vt.cols; col++) {
                struct vt_cell cell;
                if (vt_cell(&vt, r, col, &cell) != 0) continue;
                if (!cell.reverse && cell.bg_default) continue;
                int index;
                uint32_t want = xterm_of(&vt, vt_cell_paper(&cell), &index);
                if (index < 0) continue;   /* a system colour (0..15) */
                char hex[8];
                snprintf(hex, sizeof hex, "#%06x", want);
                cells++;
                if (!svg_check_has_fill(&c, hex)) {
                    if (!missing++) fprintf(stderr, "   row %d col %d: %s not in the picture\n", r, col, hex);
                }
            }
        CHECK(cells > 50);       /* the heat map's coloured cells */
        CHECK_INT(missing, 0);
        svg_check_free(&c);
    }
    /* a second export from another pane: the command is global */
    vt_send(&vt, ":view help<Enter>");
    VT_WAIT(&vt, !vt_find(&vt, "Heat map", NULL, NULL));
    snprintf(path, sizeof path, "%s/help.svg", dir);
    snprintf(keys, sizeof keys, ":export %s<Enter>", path);
    vt_send(&vt, keys);
    VT_WAIT(&vt, access(path, F_OK) == 0);
    CHECK_INT(load(path, &c), 0);
    if (c.text) CHECK_CONTAINS(c.text, "previous metric");
    svg_check_free(&c);
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    quit(&vt);
    vt_close(&vt);
}

static void export_plain(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("vt_export_plain");
    if (!dir) SKIP("no temporary folder");
    char path[1200], keys[1400];
    snprintf(path, sizeof path, "%s/plain.svg", dir);
    static const char *const args[] = { "--demo=trend", "--ascii", NULL };
    static const char *const env[] = { "NO_COLOR=1", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, env), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    snprintf(keys, sizeof keys, ":export %s<Enter>", path);
    vt_send(&vt, keys);
    VT_WAIT(&vt, vt_find(&vt, "wrote", NULL, NULL));
    struct svg_check c;
    CHECK_INT(load(path, &c), 0);
    if (c.text) {
        CHECK_CONTAINS(c.text, "Heat map");
        /* no colour but the defaults (reverse: the ink as paper) and the
         * window frame's */
        static const char *const ok[] = { "#1d2129", "#d8dee9", "#2e3440", "#bf616a", "#ebcb8b", "#a3be8c" };
        for (int k = 0; k < c.nfills; k++) {
            int known = 0;
            for (size_t j = 0; j < sizeof ok / sizeof ok[0]; j++) known |= !strcmp(c.fills[k], ok[j]);
            if (!known) fprintf(stderr, "   colour %s without colours\n", c.fills[k]);
            CHECK(known);
        }
        /* --ascii: nothing but ASCII in the cells */
        int ascii = 1;
        for (const unsigned char *p = (const unsigned char *)c.text; *p; p++) ascii &= *p < 0x80;
        CHECK(ascii);
        svg_check_free(&c);
    }
    quit(&vt);
    vt_close(&vt);
}

static void export_unwritable(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    /* short enough for the status line to show it whole */
    const char *path = "/nonexistent-pt/x.svg";
    char keys[1400];
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, demo_args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    snprintf(keys, sizeof keys, ":export %s<Enter>", path);
    vt_send(&vt, keys);
    VT_WAIT(&vt, vt_find(&vt, "cannot write", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "x.svg", NULL, NULL));
    CHECK(access(path, F_OK) != 0);
    vt_send(&vt, ":export<Enter>");
    VT_WAIT(&vt, vt_find(&vt, "usage: :export", NULL, NULL));
    quit(&vt);
    vt_close(&vt);
}

int main(void) {
    RUN(export_demo);
    RUN(export_plain);
    RUN(export_unwritable);
    PT_DONE();
}
