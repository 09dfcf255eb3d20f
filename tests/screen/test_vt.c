/* test_vt: the harness itself, driven with /bin/sh and printf so a broken
 * harness is told apart from a broken app.  Each case checks what the
 * emulator saw: text, colours, the bytes keys and mouse clicks encode to,
 * resizes reaching the program, exit statuses and the restore check. */
#include "pt_test.h"
#include "screen/vt.h"

#include <sys/wait.h>

static int sh(struct vt *vt, int cols, int rows, const char *script) {
    char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
    return vt_spawn(vt, cols, rows, argv, NULL);
}

static void test_text_and_colour(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 40, 10, "printf '\\033[?1049h\\033[2;3H\\033[31mred\\033[0m "
                              "\\033[38;5;196mX\\033[48;2;1;2;3mY\\033[0m\\033[7mR\\033[0m'; read x"), 0);
    CHECK_INT(vt_wait_text(&vt, "red XYR", 0), 0);
    int row = -1, col = -1;
    CHECK(vt_find(&vt, "red", &row, &col));
    CHECK_INT(row, 1);
    CHECK_INT(col, 2);
    CHECK_STR(vt_row_text(&vt, 1), "  red XYR");
    struct vt_cell c;
    CHECK_INT(vt_cell(&vt, 1, 2, &c), 0);
    CHECK_STR(c.glyph, "r");
    CHECK(!c.fg_default);
    CHECK(c.bg_default);
    CHECK_INT(c.bg, VT_DEFAULT_BG);
    uint32_t red16 = c.fg;
    CHECK((red16 >> 16) > 0x80 && (red16 & 0xffff) < 0x4040);   /* palette 1 is a red */
    CHECK_INT(vt_cell(&vt, 1, 6, &c), 0);
    CHECK_INT(c.fg, 0xff0000);                                     /* 256-colour cube 196 */
    CHECK_INT(vt_cell(&vt, 1, 7, &c), 0);
    CHECK_STR(c.glyph, "Y");
    CHECK_INT(c.bg, 0x010203);                                     /* truecolour */
    CHECK(!c.bg_default);
    CHECK_INT(vt_cell(&vt, 1, 8, &c), 0);
    CHECK(c.reverse);
    CHECK_INT(vt_cell_paper(&c), VT_DEFAULT_FG);
    CHECK_INT(vt_cell_ink(&c), VT_DEFAULT_BG);
    CHECK_INT(vt_cell(&vt, 1, 9, &c), 0);
    CHECK_STR(c.glyph, "");
    CHECK_INT(vt_cell(&vt, 10, 0, &c), -1);                        /* off screen */
    CHECK(vt.altscreen);
    CHECK(!vt_restored(&vt, NULL, 0));
    vt_close(&vt);
}

/* xterm-direct's colon form of SGR colours, and palette membership. */
static void test_sgr_colons(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 40, 10, "printf '\\033[38:2::1:2:3mA\\033[48:5:196mB\\033[0;4:3mC\\033[0m.'; read x"), 0);
    CHECK_INT(vt_wait_text(&vt, "ABC.", 0), 0);
    struct vt_cell c;
    vt_cell(&vt, 1, 0, &c);
    CHECK_INT(c.fg, 0x010203);
    CHECK(!vt_in_palette(&vt, c.fg));
    vt_cell(&vt, 1, 1, &c);
    CHECK_INT(c.bg, 0xff0000);
    CHECK(vt_in_palette(&vt, c.bg));
    CHECK_INT(c.fg, 0x010203);
    vt_cell(&vt, 1, 2, &c);
    CHECK(c.underline);
    CHECK(c.fg_default && c.bg_default);
    vt_close(&vt);
}

static void test_keys_and_exit(void) {
    struct vt vt;
    /* The tty is in canonical mode: a line arrives on Enter. */
    CHECK_INT(sh(&vt, 40, 10, "read a; read b; echo \"got:$a:$b\"; exit 3"), 0);
    CHECK_INT(vt_send(&vt, "one<Enter>t<lt>o<Enter>"), 0);
    CHECK_INT(vt_wait_text(&vt, "got:one:t<o", 0), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    CHECK_INT(vt_send(&vt, "<Nope>"), -1);
    vt_close(&vt);
}

/* A raw-mode program that enables modes, then echoes what it reads in
 * od's notation, so the encoding of keys can be asserted byte for byte.
 * The mouse is enabled the way ncurses does it (two modes in one DECSET,
 * which libvterm 0.1.4 alone would half ignore). */
static void test_key_encoding(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 200, 10, "stty raw -echo; printf '\\033[?1h\\033=\\033[?1006;1000hready\\r\\n';"
                              "head -c 40 | od -An -c | tr -s ' ' | tr -d '\\n'; printf '\\r\\nend'; read x"), 0);
    CHECK_INT(vt_wait_text(&vt, "ready", 0), 0);
    CHECK_INT(vt_mode(&vt, 1), 1);
    CHECK_INT(vt_mode(&vt, 66), 1);
    CHECK_INT(vt_mode(&vt, 1006), 1);
    CHECK_INT(vt_mode(&vt, 2004), -1);
    CHECK(vt.mouse_mode != 0);
    /* Up in application mode = ESC O A (3); C-c = 003 (1); <click:2,5> =
     * ESC[<0;6;3M ESC[<0;6;3m (18); F5 = ESC[15~ (5); S-Tab = ESC[Z (3);
     * wheeldown = ESC[<65;1;1M (10)... total 40. */
    CHECK_INT(vt_send(&vt, "<Up><C-c><click:2,5><F5><S-Tab><wheeldown:0,0>"), 0);
    CHECK_INT(vt_wait_text(&vt, "end", 0), 0);
    int r;
    CHECK(vt_find(&vt, "end", &r, NULL));
    const char *line = vt_row_text(&vt, r - 1);
    CHECK_CONTAINS(line, "033 O A 003 033 [ < 0 ; 6 ; 3 M 033 [ < 0 ; 6 ; 3 m 033 [ 1 5 ~ 033 [ Z 033 [ < 6 5 ; 1 ; 1 M");
    vt_close(&vt);
}

static void test_resize(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 80, 24, "stty size; trap 'stty size' WINCH; echo armed; while :; do read x && break; done; stty size"), 0);
    CHECK_INT(vt_wait_text(&vt, "armed", 0), 0);
    CHECK(vt_find(&vt, "24 80", NULL, NULL));
    CHECK_INT(vt_resize(&vt, 50, 12), 0);
    CHECK_INT(vt.cols, 50);
    if (vt_wait_text(&vt, "12 50", 0) != 0) { CHECK(0); vt_dump(&vt, stderr); }
    vt_send(&vt, "<Enter>");
    CHECK_INT(vt_wait_exit(&vt, 0, NULL), 0);
    vt_close(&vt);
}

static void test_restore_check(void) {
    struct vt vt;
    /* A well-behaved full-screen program. */
    CHECK_INT(sh(&vt, 40, 10, "stty raw -echo; printf '\\033[?1049h\\033[?25l\\033[?1h\\033=\\033[?1006;1000h\\033[1;31mAPP';"
                              "head -c 1 >/dev/null; printf '\\033[0m\\033[?1006;1000l\\033[?1l\\033>\\033[?25h\\033[?1049l';"
                              "stty sane"), 0);
    CHECK_INT(vt_wait_text(&vt, "APP", 0), 0);
    CHECK(vt.altscreen);
    CHECK(!vt.cursor_visible);
    CHECK(!vt_find(&vt, "probetop-vt-shell", NULL, NULL));
    char why[512];
    CHECK(!vt_restored(&vt, why, sizeof why));
    CHECK_CONTAINS(why, "alternate screen");
    CHECK_CONTAINS(why, "cursor hidden");
    CHECK_CONTAINS(why, "mouse reporting on");
    vt_send(&vt, "q");
    CHECK_INT(vt_wait_exit(&vt, 0, NULL), 0);
    bool ok = vt_restored(&vt, why, sizeof why);
    CHECK(ok);
    if (!ok) fprintf(stderr, "left behind: %s\n", why);
    vt_close(&vt);

    /* One that forgets everything. */
    CHECK_INT(sh(&vt, 40, 10, "stty raw -echo; printf '\\033[?1049h\\033[?25l\\033[?2004h\\033[7mAPP'"), 0);
    CHECK_INT(vt_wait_exit(&vt, 0, NULL), 0);
    CHECK(!vt_restored(&vt, why, sizeof why));
    CHECK_CONTAINS(why, "alternate screen");
    CHECK_CONTAINS(why, "bracketed paste");
    CHECK_CONTAINS(why, "pen reverse");
    CHECK_CONTAINS(why, "shell screen not restored");
    CHECK_CONTAINS(why, "raw");
    vt_close(&vt);
}

static void test_idle_and_bytes(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 40, 10, "printf 0123456789; read x; printf abcde; read x"), 0);
    CHECK_INT(vt_wait_text(&vt, "0123456789", 0), 0);
    CHECK_INT(vt_wait_idle(&vt, 50), 0);
    uint64_t before = vt.bytes_total;
    CHECK(before >= 10);
    vt_mark(&vt);
    vt_send(&vt, "<Enter>");   /* echo "\r\n" + abcde */
    CHECK_INT(vt_wait_text(&vt, "abcde", 0), 0);
    CHECK_INT(vt_wait_idle(&vt, 50), 0);
    CHECK_INT(vt.bytes_mark, 7);
    CHECK(vt.t_first >= vt.t_mark && vt.t_last >= vt.t_first);
    vt_close(&vt);
}

static void test_waits_fail_cleanly(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 40, 10, "echo bye"), 0);
    CHECK_INT(vt_wait_text(&vt, "never shown", 3000), -1);   /* child exits: no full deadline */
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(vt_find(&vt, "bye", NULL, NULL));
    char *argv[] = { "/nonexistent/probetop", NULL };
    vt_close(&vt);
    CHECK_INT(vt_spawn(&vt, 40, 10, argv, NULL), 0);
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127);
    CHECK(vt_find(&vt, "cannot run", NULL, NULL));
    vt_close(&vt);
}

/* A VT_WAIT whose condition never holds is a failure of the test (one,
 * counted in pt_fail, with the screen on stderr), and the waits after it on
 * the same vt do not wait again; one that holds counts nothing. */
static void test_vt_wait_fails(void) {
    struct vt vt;
    fprintf(stderr, "(the two VT_WAIT failures below are expected)\n");
    CHECK_INT(sh(&vt, 40, 10, "echo ready; sleep 30"), 0);
    vt.timeout_ms = 300;
    VT_WAIT(&vt, vt_has(&vt, "ready"));
    int before = pt_fail;
    CHECK(!vt.broken);
    double t0 = vt_now();
    VT_WAIT(&vt, vt_has(&vt, "never shown"));
    double t1 = vt_now();
    VT_WAIT(&vt, vt_has(&vt, "not shown either"));
    double t2 = vt_now();
    int counted = pt_fail - before;
    pt_fail = before;    /* the expected failure is this test's pass */
    CHECK_INT(counted, 1);
    CHECK(vt.broken);
    CHECK(t1 - t0 >= 0.25);
    CHECK(t2 - t1 < 0.2);
    vt_close(&vt);

    /* the program exits without showing it: fails at once, not at the deadline */
    CHECK_INT(sh(&vt, 40, 10, "echo bye; exit 3"), 0);
    before = pt_fail;
    t0 = vt_now();
    VT_WAIT(&vt, vt_has(&vt, "never shown"));
    counted = pt_fail - before;
    pt_fail = before;
    CHECK_INT(counted, 1);
    CHECK(vt_now() - t0 < vt.timeout_ms / 1000.0);
    vt_close(&vt);
}

static void test_env(void) {
    struct vt vt;
    const char *env[] = { "NO_COLOR=1", "HOME", NULL };
    char *argv[] = { "/bin/sh", "-c", "echo \"[$TERM][$LANG][$NO_COLOR][${HOME-unset}][${COLORTERM-none}]\"; read x", NULL };
    CHECK_INT(vt_spawn(&vt, 80, 5, argv, env), 0);
    CHECK_INT(vt_wait_text(&vt, "[xterm-256color][C.UTF-8][1][unset][none]", 0), 0);
    vt_close(&vt);
}

static void test_svg(void) {
    struct vt vt;
    CHECK_INT(sh(&vt, 20, 4, "printf '\\033[44m<&>\\033[0m \\342\\226\\200\\342\\240\\277 ok'; read x"), 0);
    CHECK_INT(vt_wait_text(&vt, "ok", 0), 0);
    char dir[] = "/tmp/pt_vt_svgXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/s.svg", dir);
    CHECK_INT(vt_svg(&vt, path, "t<1>"), 0);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        static char buf[65536];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK_CONTAINS(buf, "<svg xmlns");
        CHECK_CONTAINS(buf, "<title>t&lt;1&gt;</title>");
        CHECK_CONTAINS(buf, "&lt;&amp;&gt;");
        CHECK_CONTAINS(buf, "\xe2\xa0\xbf");             /* braille stays text */
        CHECK(strstr(buf, "\xe2\x96\x80") == NULL);      /* the half block became a rect */
        CHECK_CONTAINS(buf, "height=\"9.00\"");           /* ...of half a cell */
        CHECK_CONTAINS(buf, "</svg>");
    }
    unlink(path);
    rmdir(dir);
    CHECK_INT(vt_svg(&vt, "/nonexistent/dir/x.svg", "x"), -1);
    vt_close(&vt);
}

int main(void) {
    RUN(test_text_and_colour);
    RUN(test_sgr_colons);
    RUN(test_keys_and_exit);
    RUN(test_key_encoding);
    RUN(test_resize);
    RUN(test_restore_check);
    RUN(test_idle_and_bytes);
    RUN(test_waits_fail_cleanly);
    RUN(test_vt_wait_fails);
    RUN(test_env);
    RUN(test_svg);
    PT_DONE();
}
