/* test_vt_modes: terminal capabilities (probetop(1), ENVIRONMENT): NO_COLOR
 * honoured, ASCII when the locale is not UTF-8 or with --ascii, truecolor
 * only when COLORTERM says so.  In every mode the demo's NaN burst must stay
 * visible: by glyph and, without colour, by attribute. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)


/* Starts the demo at 80x24 and brings the burst into view with a line in
 * the chart: status "= NaN", legend "1 rank 5". */
static int start_burst(struct vt *vt, const char *const *args, const char *const *env) {
    if (vt_spawn_app(vt, 80, 24, args, env) < 0) return -1;
    VT_WAIT(vt, vt_row_has(vt, 0, "forward/norm"));
    vt_send(vt, ":step 9<Enter>");
    VT_WAIT(vt, vt_row_has(vt, 0, "step 9"));
    vt_send(vt, ":rank 5<Enter>");
    VT_WAIT(vt, vt_row_has(vt, 22, "rank 5"));
    vt_send(vt, ":goto layers.6.input_layernorm<Enter>");
    VT_WAIT(vt, vt_row_has(vt, 22, "= NaN"));
    vt_send(vt, "<Enter>");
    VT_WAIT(vt, vt_find(vt, "1 rank 5", NULL, NULL));
    bool ok = vt_row_has(vt, 22, "step 9  rank 5  forward/norm = NaN") && vt_find(vt, "1 rank 5", NULL, NULL);
    if (!ok) vt_dump(vt, stderr);
    return ok ? 0 : -1;
}

/* Rows of the heat-map body: below the x axis, above the legend. */
static void body_rows(struct vt *vt, int *r0, int *r1) {
    int t = 0, l = vt->rows;
    vt_find(vt, "Heat map", &t, NULL);
    *r0 = t + 2;
    if (!vt_find_from(vt, "+Inf - -Inf", t + 2, &l, NULL)) vt_find(vt, "Line chart", &l, NULL);  /* legend */
    *r1 = l;
}

/* The NaN cells of the body (glyph 'N' starting "NaN"), counted; *cell gets
 * the last one. */
static int nan_cells(struct vt *vt, struct vt_cell *cell) {
    int r0, r1, n = 0;
    body_rows(vt, &r0, &r1);
    for (int r = r0; r < r1; r++)
        for (int c = 0; c + 2 < vt->cols; c++) {
            struct vt_cell a, b, d;
            vt_cell(vt, r, c, &a);
            vt_cell(vt, r, c + 1, &b);
            vt_cell(vt, r, c + 2, &d);
            if (a.ch == 'N' && b.ch == 'a' && d.ch == 'N') { n++; *cell = a; }
        }
    return n;
}

static bool all_ascii(struct vt *vt, int *bad_row, int *bad_col) {
    for (int r = 0; r < vt->rows; r++)
        for (int c = 0; c < vt->cols; c++) {
            struct vt_cell x;
            vt_cell(vt, r, c, &x);
            if (x.ch >= 0x80) { *bad_row = r; *bad_col = c; return false; }
        }
    return true;
}

static void test_no_color(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL }, *env[] = { "NO_COLOR=1", NULL };
    struct vt vt;
    CHECK_INT(start_burst(&vt, args, env), 0);
    /* Not one colour anywhere: every cell keeps the terminal's defaults. */
    int coloured = pt_vt_coloured_cells(&vt);
    CHECKV(&vt, coloured == 0);
    /* The heat map speaks in shades instead: several distinct glyphs. */
    int r0, r1;
    body_rows(&vt, &r0, &r1);
    uint32_t seen[16];
    int nseen = 0;
    for (int r = r0; r < r1; r++)
        for (int c = 27; c < vt.cols; c++) {
            struct vt_cell x;
            vt_cell(&vt, r, c, &x);
            bool dup = false;
            for (int i = 0; i < nseen; i++) dup |= seen[i] == x.ch;
            if (!dup && nseen < 16) seen[nseen++] = x.ch;
        }
    CHECKV(&vt, nseen >= 4);
    /* NaN: the word, set off by an attribute, not by a colour. */
    struct vt_cell nan;
    CHECKV(&vt, nan_cells(&vt, &nan) >= 2);
    CHECK(nan.reverse || nan.bold || nan.underline);
    pt_vt_quit(&vt);
}

static void ascii_mode(const char *const *args, const char *const *env) {
    struct vt vt;
    CHECK_INT(start_burst(&vt, args, env), 0);
    int br = -1, bc = -1;
    bool ok = all_ascii(&vt, &br, &bc);
    CHECK(ok);
    if (!ok) { fprintf(stderr, "non-ASCII glyph at %d,%d\n", br, bc); vt_dump(&vt, stderr); }
    struct vt_cell nan;
    CHECKV(&vt, nan_cells(&vt, &nan) >= 2);
    CHECK(!nan.bg_default || nan.reverse);          /* colour still marks it */
    CHECKV(&vt, vt_row_has(&vt, 1, "> Heat map"));     /* the focus mark */
    /* The chart drew its line in ASCII. */
    int lc = -1;
    vt_find(&vt, "Line chart", &lc, NULL);
    int marks = 0;
    for (int r = lc + 1; lc >= 0 && r < 20; r++)
        for (int c = 9; c < vt.cols; c++) {
            struct vt_cell x;
            vt_cell(&vt, r, c, &x);
            if (x.ch == '*' || x.ch == '+' || x.ch == 'o' || x.ch == '#' || x.ch == '.') marks++;
        }
    CHECKV(&vt, marks >= 10);
    /* Help and a narrow screen stay ASCII too. */
    vt_send(&vt, "?");
    VT_WAIT(&vt, vt_find(&vt, "next metric", NULL, NULL));
    ok = all_ascii(&vt, &br, &bc);
    CHECK(ok);
    if (!ok) { fprintf(stderr, "help: non-ASCII glyph at %d,%d\n", br, bc); vt_dump(&vt, stderr); }
    vt_send(&vt, "?");
    vt_resize(&vt, 30, 8);
    VT_WAIT(&vt, vt_row_has(&vt, 7, "40x12") || vt_row_has(&vt, 1, "Heat map"));
    ok = all_ascii(&vt, &br, &bc);
    CHECK(ok);
    if (!ok) { fprintf(stderr, "30x8: non-ASCII glyph at %d,%d\n", br, bc); vt_dump(&vt, stderr); }
    pt_vt_quit(&vt);
}

static void test_lang_c(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL }, *env[] = { "LANG=C", NULL };
    ascii_mode(args, env);
}

static void test_ascii_flag(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", "--ascii", NULL };
    ascii_mode(args, NULL);
}

/* Counts heat-map cells whose background is not the default, and those of
 * them whose colour is outside the 256-colour palette. */
static void heat_colours(struct vt *vt, int *coloured, int *direct) {
    int r0, r1;
    body_rows(vt, &r0, &r1);
    *coloured = *direct = 0;
    for (int r = r0; r < r1; r++)
        for (int c = 27; c < vt->cols; c++) {
            struct vt_cell x;
            vt_cell(vt, r, c, &x);
            if (x.bg_default && !x.reverse) continue;
            (*coloured)++;
            if (!vt_in_palette(vt, vt_cell_paper(&x))) (*direct)++;
        }
}

/* An xterm-direct terminfo entry, compiled with tic into dir (the system
 * has only xterm-256color); 0 ok, -1 when tic is not there. */
static int make_direct_terminfo(char *dir, size_t size) {
    const char *base = getenv("PT_TMP");
    snprintf(dir, size, "%s/test_modes_terminfo", base && *base ? base : "/tmp");
    char src[4200], cmd[8600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) return -1;
    snprintf(src, sizeof src, "%s/direct.src", dir);
    if (pt_write(src, "xterm-direct|xterm with direct-color indexing (test copy),\n"
                      "\tRGB, colors#0x1000000, pairs#0x10000, CO#8,\n"
                      "\tinitc@, oc@, ccc@,\n"
                      "\tsetab=\\E[%?%p1%{8}%<%t4%p1%d%e48\\:2\\:\\:%p1%{65536}%/%d\\:%p1%{256}%/%{255}%&%d\\:%p1%{255}%&%d%;m,\n"
                      "\tsetaf=\\E[%?%p1%{8}%<%t3%p1%d%e38\\:2\\:\\:%p1%{65536}%/%d\\:%p1%{256}%/%{255}%&%d\\:%p1%{255}%&%d%;m,\n"
                      "\tuse=xterm-256color,\n") != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "tic -x -o '%s' '%s' 2>/dev/null", dir, src);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_truecolor(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    char dir[4096], tdirs[4200];
    if (make_direct_terminfo(dir, sizeof dir) < 0) SKIP("tic could not build an xterm-direct entry");
    snprintf(tdirs, sizeof tdirs, "TERMINFO_DIRS=%s:", dir);   /* then the system's */
    const char *args[] = { "--demo=trend", NULL };
    int coloured, direct;
    struct vt vt;

    /* COLORTERM unset: the 256-colour palette, although a direct-colour
     * description exists. */
    const char *env256[] = { tdirs, NULL };
    CHECK_INT(start_burst(&vt, args, env256), 0);
    heat_colours(&vt, &coloured, &direct);
    CHECKV(&vt, coloured > 100);
    CHECKV(&vt, direct == 0);
    pt_vt_quit(&vt);

    /* COLORTERM=truecolor: the ramp's own colours, outside the palette. */
    const char *envtc[] = { tdirs, "COLORTERM=truecolor", NULL };
    CHECK_INT(start_burst(&vt, args, envtc), 0);
    heat_colours(&vt, &coloured, &direct);
    CHECKV(&vt, coloured > 100);
    CHECKV(&vt, direct > 0);
    struct vt_cell nan;
    CHECKV(&vt, nan_cells(&vt, &nan) >= 2);
    pt_vt_quit(&vt);

    /* COLORTERM=truecolor but no direct-colour description: 256 colours,
     * still working. */
    const char *envno[] = { "COLORTERM=truecolor", NULL };
    CHECK_INT(start_burst(&vt, args, envno), 0);
    heat_colours(&vt, &coloured, &direct);
    CHECKV(&vt, coloured > 100);
    CHECKV(&vt, direct == 0);
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_no_color);
    RUN(test_lang_c);
    RUN(test_ascii_flag);
    RUN(test_truecolor);
    PT_DONE();
}
