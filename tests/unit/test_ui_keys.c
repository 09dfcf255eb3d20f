/* Key tables (lookup, grouping, names, no duplicates), the man-page and
 * help document, the braille canvas and the prompt line editor. */
#include "pt_test.h"
#include "src/app/app_state.h"
#include "ui/canvas.h"
#include "ui/keys.h"
#include "ui/prompt.h"

enum { ACT_UP = 1, ACT_DOWN, ACT_QUIT };
static const struct keys_row rows[] = {
    {KEYS_UP, NULL, ACT_UP, "move up"}, {'k', NULL, ACT_UP, "move up"},
    {KEYS_DOWN, NULL, ACT_DOWN, "move down"}, {'j', NULL, ACT_DOWN, NULL},
    {'q', NULL, ACT_QUIT, "quit"}, {KEYS_ENTER, NULL, ACT_QUIT, "quit"},
};

static char grouped[512];
static void collect(void *ctx, const char *keys, const char *help) {
    (void)ctx;
    size_t n = strlen(grouped);
    snprintf(grouped + n, sizeof grouped - n, "%s=%s;", keys, help);
}

static void lookup(void) {
    CHECK_INT(keys_find(rows, 6, 'k')->action, ACT_UP);
    CHECK_INT(keys_find(rows, 6, 'j')->action, ACT_DOWN);
    CHECK_INT(keys_find(rows, 6, '\n')->action, ACT_QUIT);   /* LF is Enter */
    CHECK(keys_find(rows, 6, 'x') == NULL);
    grouped[0] = '\0';
    keys_group(rows, 6, collect, NULL);
    CHECK_STR(grouped, "Up, k=move up;Down, j=move down;q, Enter=quit;");
    char b[16];
    CHECK_STR(keys_name(KEYS_CTRL('u'), b, sizeof b), "C-u");
    CHECK_STR(keys_name(KEYS_PGDN, b, sizeof b), "PgDn");
    CHECK_STR(keys_name(' ', b, sizeof b), "Space");
    CHECK_STR(keys_name(KEYS_F2, b, sizeof b), "F2");
    CHECK_STR(keys_name(0xe9, b, sizeof b), "\xc3\xa9");
}

/* Every table: one action per key. */
static void no_duplicates(void) {
    for (size_t i = 0; i < app_nkeys; i++)
        for (size_t j = i + 1; j < app_nkeys; j++) CHECK(app_keys[i].code != app_keys[j].code);
    for (int p = 0; p < app_npanes; p++) {
        const struct view_ops *o = app_panes[p].ops;
        for (size_t i = 0; i < o->nkeys; i++) {
            CHECK(o->keys[i].action > 0);
            for (size_t j = i + 1; j < o->nkeys; j++)
                if (o->keys[i].code == o->keys[j].code) {
                    fprintf(stderr, "pane %s: key %d twice\n", o->name, o->keys[i].code);
                    CHECK(0);
                }
        }
    }
}

/* The heat map's keys (probetop(1), KEYS) are all bound, globally or on
 * the heat map. */
static void heatmap_keys_bound(void) {
    const struct view_ops *heat = NULL;
    for (int p = 0; p < app_npanes; p++)
        if (!strcmp(app_panes[p].ops->name, "heatmap")) heat = app_panes[p].ops;
    CHECK(heat != NULL);
    if (!heat) return;
    const int want[] = {KEYS_UP, KEYS_DOWN, KEYS_LEFT, KEYS_RIGHT, 'h', 'j', 'k', 'l', KEYS_PGUP, KEYS_PGDN, KEYS_CTRL('u'),
                        KEYS_CTRL('d'), 'g', 'G', KEYS_HOME, KEYS_END, KEYS_TAB, 'm', 'M', 's', 'S', 'd', '[', ']',
                        KEYS_ENTER, 'c', 'x', 'r', 'z', 'Z', '/', 'n', 'N', '?', 'q', ':'};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int bound = keys_find(heat->keys, heat->nkeys, want[i]) || keys_find(app_keys, app_nkeys, want[i]);
        if (!bound) fprintf(stderr, "key %d unbound\n", want[i]);
        CHECK(bound);
    }
}

static void man_page(void) {
    char path[4096];
    const char *dir = pt_tmpdir("ui_keys");
    if (!dir) SKIP("no scratch dir");
    snprintf(path, sizeof path, "%s/keys.roff", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    app_keys_man(f);
    fclose(f);
    f = fopen(path, "r");
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    CHECK_CONTAINS(text, ".SH KEYS\n");
    CHECK_CONTAINS(text, ".SS Everywhere\n");
    CHECK_CONTAINS(text, ".TP\n.B q, F10\nquit\n");   /* F10 quits, as in htop and mc */
    CHECK_CONTAINS(text, ".SS Legend: heat map\n");
    CHECK_CONTAINS(text, ".B \\[u2022]\npass");       /* UTF-8 glyphs as groff escapes */
    CHECK_CONTAINS(text, ".B Up, k\nmove up\n");
    CHECK_CONTAINS(text, ".B :goto TARGET\n");
    CHECK_CONTAINS(text, ".SS Heat map (when focused)\n");
    CHECK_CONTAINS(text, ".B C\\-d\nhalf a page down\n");   /* hyphens escaped for roff */
}

static void canvas(void) {
    struct canvas c;
    char g[8];
    CHECK_INT(canvas_init(&c, CANVAS_BRAILLE, 3, 2), 0);
    CHECK_INT(canvas_xdots(&c), 6);
    CHECK_INT(canvas_ydots(&c), 8);
    canvas_dot(&c, 0, 0, 2);
    CHECK_INT(canvas_cell(&c, 0, 0, g), 2);
    CHECK_STR(g, "\xe2\xa0\x81");                   /* U+2801: dot 1 */
    canvas_dot(&c, 1, 3, 4);
    CHECK_INT(canvas_cell(&c, 0, 0, g), 4);
    CHECK_STR(g, "\xe2\xa2\x81");                   /* U+2881: dots 1 and 8 */
    canvas_clear(&c);
    canvas_line(&c, 0, 7, 5, 7, 1);                 /* bottom row of dots */
    for (int x = 0; x < 3; x++) {
        CHECK_INT(canvas_cell(&c, x, 1, g), 1);
        CHECK_STR(g, "\xe2\xa3\x80");               /* U+28C0: dots 7 and 8 */
    }
    CHECK_INT(canvas_cell(&c, 0, 0, g), -1);
    canvas_line(&c, -1e9, -1e9, 1e9, 1e9, 3);       /* clipped, no overflow, no hang */
    CHECK_INT(canvas_cell(&c, 0, 0, g), 3);
    canvas_line(&c, NAN, 0, 1, 1, 5);
    canvas_free(&c);
    CHECK_INT(canvas_init(&c, CANVAS_ASCII, 2, 2), 0);
    canvas_dot(&c, 1, 1, 1);
    CHECK_INT(canvas_cell(&c, 1, 1, g), 1);
    CHECK_STR(g, "+");
    canvas_free(&c);
    CHECK_INT(canvas_init(&c, CANVAS_HALF, 1, 1), 0);
    canvas_dot(&c, 0, 1, 0);
    canvas_cell(&c, 0, 0, g);
    CHECK_STR(g, "\xe2\x96\x84");
    canvas_dot(&c, 0, 0, 0);
    canvas_cell(&c, 0, 0, g);
    CHECK_STR(g, "\xe2\x96\x88");
    canvas_free(&c);
}

static void type(struct prompt *p, const char *s) {
    for (; *s; s++) prompt_key(p, (unsigned char)*s);
}

static void prompt(void) {
    struct prompt p;
    prompt_init(&p);
    prompt_open(&p, ':', "");
    type(&p, "stpe 3");
    prompt_key(&p, KEYS_HOME);
    prompt_key(&p, KEYS_RIGHT);
    prompt_key(&p, KEYS_RIGHT);
    prompt_key(&p, KEYS_DELETE);
    prompt_key(&p, KEYS_RIGHT);
    type(&p, "p");
    CHECK_STR(p.buf, "step 3");
    CHECK_INT(prompt_cursor_col(&p), 4);
    CHECK_INT(prompt_key(&p, KEYS_ENTER), PROMPT_DONE);
    CHECK(!p.active);
    prompt_open(&p, ':', "");
    type(&p, "goto x");
    prompt_key(&p, KEYS_CTRL('w'));
    CHECK_STR(p.buf, "goto ");
    prompt_key(&p, KEYS_CTRL('u'));
    CHECK_STR(p.buf, "");
    type(&p, "draft");
    prompt_key(&p, KEYS_UP);
    CHECK_STR(p.buf, "step 3");
    prompt_key(&p, KEYS_DOWN);
    CHECK_STR(p.buf, "draft");
    CHECK_INT(prompt_key(&p, KEYS_ESC), PROMPT_CANCEL);
    /* The / history is separate from the : history. */
    prompt_open(&p, '/', "");
    prompt_key(&p, KEYS_UP);
    CHECK_STR(p.buf, "");
    prompt_key(&p, 0x3b1);                      /* a code point */
    CHECK_STR(p.buf, "\xce\xb1");
    prompt_key(&p, KEYS_BACKSPACE);
    CHECK_STR(p.buf, "");
    CHECK_INT(prompt_key(&p, KEYS_BACKSPACE), PROMPT_CANCEL);   /* BS on empty leaves */
    prompt_free(&p);
}

int main(void) {
    RUN(lookup);
    RUN(no_duplicates);
    RUN(heatmap_keys_bound);
    RUN(man_page);
    RUN(canvas);
    RUN(prompt);
    PT_DONE();
}
