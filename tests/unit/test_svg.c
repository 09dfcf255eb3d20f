/* test_svg: ui/svg.c, the cells -> SVG writer behind :export and
 * `parallel --svg`: the picture is well-formed XML (tests/svg_check.h), holds
 * the texts and colours of its cells, escapes what XML cannot hold, and is
 * written whole or not at all. */
#include "pt_test.h"
#include "svg_check.h"
#include "model/layout/layout.h"
#include "src/cmd/cmd.h"
#include "ui/svg.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* The picture of text (SGR escapes applied) checked; c filled. */
static int picture(const char *text, const char *title, struct svg_check *c) {
    struct svg_grid g;
    if (svg_grid_text(&g, text, strlen(text)) != 0) return -1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { svg_grid_free(&g); return -1; }
    svg_write(f, &g, title);
    fclose(f);
    svg_grid_free(&g);
    int rc = svg_check(c, buf, len);
    if (rc) fprintf(stderr, "   not well-formed: %s\n%s\n", c->why, buf);
    free(buf);
    return rc;
}

static void grid_from_text(void) {
    struct svg_grid g;
    const char *t = "ab\033[1;38;5;196mC\033[0m\n\tx\033[7my\n";
    CHECK_INT(svg_grid_text(&g, t, strlen(t)), 0);
    CHECK_INT(g.rows, 2);
    CHECK_INT(g.cols, 10);
    CHECK_INT(svg_grid_at(&g, 0, 0)->ch, 'a');
    CHECK_INT(svg_grid_at(&g, 0, 0)->flags, SVG_FG_DEFAULT | SVG_BG_DEFAULT);
    CHECK_INT(svg_grid_at(&g, 0, 2)->ch, 'C');
    CHECK_INT(svg_grid_at(&g, 0, 2)->fg, 0xff0000);
    CHECK(svg_grid_at(&g, 0, 2)->flags & SVG_BOLD);
    CHECK(!(svg_grid_at(&g, 0, 2)->flags & SVG_FG_DEFAULT));
    CHECK_INT(svg_grid_at(&g, 1, 8)->ch, 'x');           /* after the tab */
    CHECK(svg_grid_at(&g, 1, 9)->flags & SVG_REVERSE);
    CHECK_INT(svg_grid_at(&g, 0, 5)->ch, ' ');            /* padding */
    CHECK(svg_grid_at(&g, 2, 0) == NULL);
    svg_grid_free(&g);
    CHECK_INT(svg_xterm_rgb(196), 0xff0000);
    CHECK_INT(svg_xterm_rgb(231), 0xffffff);
    CHECK_INT(svg_xterm_rgb(16), 0x000000);
}

static void texts_and_colours(void) {
    struct svg_check c;
    const char *t = "\033[1mHeat map\033[0m forward/norm\n"
                    "\033[48;5;196m\033[38;5;231m Stage 0 \033[0m \033[48;2;1;2;3m  \033[0m\n"
                    "\033[7mrev\033[27m \xe2\x96\x88\xe2\x96\x84 \xe2\x94\x82 \xe2\xa3\xbf\n";
    CHECK_INT(picture(t, "demo", &c), 0);
    CHECK_CONTAINS(c.text, "Heat map");
    CHECK_CONTAINS(c.text, "forward/norm");
    CHECK_CONTAINS(c.text, "Stage 0");
    CHECK_CONTAINS(c.text, "rev");
    CHECK_CONTAINS(c.text, "\xe2\x94\x82");               /* a box line as text */
    CHECK_CONTAINS(c.text, "\xe2\xa3\xbf");               /* braille */
    CHECK(!strstr(c.text, "\xe2\x96\x88"));               /* blocks are rectangles */
    CHECK(svg_check_has_fill(&c, "#ff0000"));             /* the cell's background */
    CHECK(svg_check_has_fill(&c, "#ffffff"));             /* its text */
    CHECK(svg_check_has_fill(&c, "#010203"));             /* 24-bit */
    CHECK(svg_check_has_fill(&c, "#1d2129"));             /* the default paper */
    CHECK(svg_check_has_fill(&c, "#d8dee9"));             /* reverse: the default ink as paper */
    CHECK(c.elements > 10);
    svg_check_free(&c);
}

/* What XML cannot hold: markup characters, control characters, invalid
 * UTF-8, in the cells and in the title. */
static void escapes(void) {
    struct svg_check c;
    const char *t = "a<b>&c\"d'e\x01\x7f \xff\xfe bad \xc3(\n<svg>]]></svg>\n";
    CHECK_INT(picture(t, "<title> & \"x\" \x02", &c), 0);
    CHECK_CONTAINS(c.text, "a<b>&c\"d'e");
    CHECK_CONTAINS(c.text, "<svg>]]></svg>");
    CHECK_CONTAINS(c.text, "<title> & \"x\"");
    CHECK_CONTAINS(c.text, "\xef\xbf\xbd");               /* U+FFFD for a bad byte */
    svg_check_free(&c);
    /* empty text: an empty picture, still well-formed */
    CHECK_INT(picture("", NULL, &c), 0);
    CHECK_CONTAINS(c.text, "probetop");
    svg_check_free(&c);
}

/* The checker itself catches what it must. */
static void checker_rejects(void) {
    struct svg_check c;
    static const char *const bad[] = {
        "<a><b></a></b>", "<a x=1/>", "<a>&nbsp;</a>", "<a>\x01</a>", "<a/><b/>", "<a x=\"1\" x=\"2\"/>", "<a>",
        "<a>\xff</a>", "<a x=\"<\"/>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(svg_check(&c, bad[i], strlen(bad[i])) != 0);
        svg_check_free(&c);
    }
    CHECK_INT(svg_check(&c, "<a x='1'><b/>t&amp;&#65;</a>\n", 28), 0);
    svg_check_free(&c);
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void save_whole_or_nothing(void) {
    const char *dir = pt_tmpdir("svg_save");
    if (!dir) SKIP("no temporary folder");
    struct svg_grid g;
    CHECK_INT(svg_grid_text(&g, "hello\n", 6), 0);
    char path[1200];
    struct pt_error err;
    snprintf(path, sizeof path, "%s/pic.svg", dir);
    CHECK_INT(svg_save(path, &g, "t", &err), 0);
    char *s = pt_slurp(path);
    CHECK(s != NULL);
    struct svg_check c;
    if (s) {
        CHECK_INT(svg_check(&c, s, strlen(s)), 0);
        CHECK_CONTAINS(c.text, "hello");
        svg_check_free(&c);
        free(s);
    }
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0444) == 0444);   /* readable, not mkstemp's 0600 */
    CHECK_INT(count_entries(dir), 1);                             /* no temporary file left */
    /* over an existing file: replaced */
    CHECK_INT(svg_save(path, &g, "t", &err), 0);
    CHECK_INT(count_entries(dir), 1);

    /* a folder that does not exist: an error naming the path, no file */
    snprintf(path, sizeof path, "%s/no/such/pic.svg", dir);
    CHECK_INT(svg_save(path, &g, "t", &err), -1);
    CHECK_CONTAINS(err.msg, "no/such/pic.svg");
    CHECK(access(path, F_OK) != 0);
    /* a folder as the target: the rename fails, the temporary file goes */
    snprintf(path, sizeof path, "%s/sub", dir);
    CHECK_INT(mkdir(path, 0777), 0);
    CHECK_INT(svg_save(path, &g, "t", &err), -1);
    CHECK_CONTAINS(err.msg, "sub");
    CHECK_INT(count_entries(dir), 2);
    /* no name */
    CHECK_INT(svg_save("", &g, "t", &err), -1);
    svg_grid_free(&g);
}

/* `probetop parallel --svg FILE`: the layout table as a picture, with the
 * copies' colours; nothing on stdout; a bad path is an error and no file. */
static void parallel_svg(void) {
    const char *dir = pt_tmpdir("svg_parallel");
    if (!dir) SKIP("no temporary folder");
    char path[1200], out[1200], errf[1200];
    snprintf(path, sizeof path, "%s/layout.svg", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    const char *argv[] = {"parallel", "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2",
                          "--vpp-layers=2", "--svg", path};
    CHECK_INT(pt_capture(out, errf, cmd_parallel_entry.run, 12, argv), 0);
    char *s = pt_slurp(out);
    CHECK(s && !*s);
    free(s);
    s = pt_slurp(path);
    CHECK(s != NULL);
    struct svg_check c;
    if (s) {
        CHECK_INT(svg_check(&c, s, strlen(s)), 0);
        CHECK_CONTAINS(c.text, "Model Parallelism Configuration");
        CHECK_CONTAINS(c.text, "Group0: Rank0-1");
        CHECK_CONTAINS(c.text, "Stage 1");
        CHECK_CONTAINS(c.text, "Embed+L1-2");
        CHECK_CONTAINS(c.text, "probetop parallel");
        for (int copy = 0; copy < 2; copy++) {
            char hex[8];
            snprintf(hex, sizeof hex, "#%06x", svg_xterm_rgb(layout_rgb_xterm256(layout_copy_rgb(2, copy))));
            CHECK(svg_check_has_fill(&c, hex));
        }
        svg_check_free(&c);
        free(s);
    }
    /* --color never: the table without the copies' colours */
    const char *plain[] = {"parallel", "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2",
                           "--color", "never", "--svg", path};
    CHECK_INT(pt_capture(out, errf, cmd_parallel_entry.run, 13, plain), 0);
    s = pt_slurp(path);
    if (s) {
        CHECK_INT(svg_check(&c, s, strlen(s)), 0);
        char hex[8];
        snprintf(hex, sizeof hex, "#%06x", svg_xterm_rgb(layout_rgb_xterm256(layout_copy_rgb(2, 0))));
        CHECK(!svg_check_has_fill(&c, hex));
        svg_check_free(&c);
        free(s);
    }
    /* a folder that does not exist */
    snprintf(path, sizeof path, "%s/none/layout.svg", dir);
    const char *bad[] = {"parallel", "--world-size", "8", "--num-layers", "8", "--svg", path};
    CHECK_INT(pt_capture(out, errf, cmd_parallel_entry.run, 7, bad), 2);
    s = pt_slurp(errf);
    if (s) CHECK_CONTAINS(s, "none/layout.svg");
    free(s);
    CHECK(access(path, F_OK) != 0);
    /* not with json */
    const char *json[] = {"parallel", "--world-size", "8", "--num-layers", "8", "--format", "json", "--svg", path};
    CHECK_INT(pt_capture(out, errf, cmd_parallel_entry.run, 9, json), 2);
}

int main(void) {
    RUN(grid_from_text);
    RUN(texts_and_colours);
    RUN(escapes);
    RUN(checker_rejects);
    RUN(save_whole_or_nothing);
    RUN(parallel_svg);
    PT_DONE();
}
