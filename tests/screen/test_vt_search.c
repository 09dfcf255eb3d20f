/* test_vt_search: the search pane (F4), the label picker and the one regex
 * search, at 80x24: label picker, regex errors and limits; screenshots.
 *
 * On msProbe's quick_start dump (a ResNet, two steps) and on the demo:
 * the labels by category with their counts (a label's count is the number
 * of targets it leaves when selected alone); two labels combine with AND
 * and the heat map's rows follow; `/` filters with the matches highlighted,
 * ignoring case unless `i`; n / N walk the matching labels; an invalid
 * pattern is reported with its column and keeps the previous filter; a
 * catastrophic pattern stops at PCRE2's limits and the screen answers the
 * next key; the prompt keeps a history.  Each step waits for what it
 * asserts. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <ctype.h>
#include <strings.h>
#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

#define QUICK_START "examples/quick_start/gpu_dump"
#define VLINE "\xe2\x94\x82"

/* strcasestr() without _GNU_SOURCE: ASCII case folding is all names need. */
static const char *ci_find(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return hay;
    return n ? NULL : hay;
}



static int msg_row(struct vt *vt) { return vt->rows - 1; }

/* The pane's first row ("Labels ... Regex ... N of M targets"). */
static int header_row(struct vt *vt) {
    for (int r = 0; r < 3; r++)
        if (strncmp(vt_row_text(vt, r), "Labels ", 7) == 0) return r;
    return -1;
}

static bool header_has(struct vt *vt, const char *text) { return vt_row_has(vt, header_row(vt), text); }

/* "X of Y targets" from the header; -1 when absent. */
static long shown_targets(struct vt *vt, long *total) {
    int h = header_row(vt);
    if (h < 0) return -1;
    const char *row = vt_row_text(vt, h), *p = strstr(row, " targets");
    if (!p) return -1;
    while (p > row && p[-1] != ' ') p--;          /* Y */
    long y = atol(p);
    p--;
    while (p > row && p[-1] == ' ') p--;
    p -= 3;                                       /* " of " */
    if (p <= row || strncmp(p, " of", 3) != 0) return -1;
    while (p > row && p[-1] != ' ') p--;
    if (total) *total = y;
    return atol(p);
}

/* The two columns of a body row (split at the vertical line). */
static void columns(struct vt *vt, int row, char *left, char *right, size_t size) {
    const char *t = vt_row_text(vt, row), *bar = strstr(t, VLINE);
    if (!bar) {
        snprintf(left, size, "%s", t);
        right[0] = '\0';
        return;
    }
    snprintf(left, size, "%.*s", (int)(bar - t), t);
    snprintf(right, size, "%s", bar + strlen(VLINE));
}

static int body_top(struct vt *vt) { return header_row(vt) + 2; }

/* The status line of the picker: "CAT label TEXT: N targets". */
static bool on_label(struct vt *vt, const char *text, long *count) {
    char want[256];
    snprintf(want, sizeof want, " label %s: ", text);
    const char *row = vt_row_text(vt, vt_status_row(vt)), *p = strstr(row, want);
    if (!p) return false;
    if (count) *count = atol(p + strlen(want));
    return true;
}

/* The status line on the last label (G), the cursor back on the first
 * (g): where walking down the picker ends, known without a timeout. */
static void last_label(struct vt *vt, char *last, size_t size) {
    char before[2048];
    vt_send(vt, "g");
    VT_WAIT(vt, strstr(vt_row_text(vt, vt_status_row(vt)), " label ") != NULL);
    snprintf(before, sizeof before, "%s", vt_row_text(vt, vt_status_row(vt)));
    vt_send(vt, "G");
    CHECK_INT(vt_wait_change(vt, vt_status_row(vt), before, 0), 0);
    snprintf(last, size, "%s", vt_row_text(vt, vt_status_row(vt)));
    vt_send(vt, "g");
    VT_WAIT(vt, !strcmp(vt_row_text(vt, vt_status_row(vt)), before));
}

/* Moves the label cursor down to the label `text`, j by j, each step
 * waiting for the status line to move; last (NULL: the label is known to
 * be below) is the status line on the last label, where the walk gives up.
 * Returns the label's count, -1 when not found.  goto_label() starts from
 * the top. */
static long goto_label_from(struct vt *vt, const char *text, const char *last) {
    long n;
    char before[2048];
    for (int i = 0; i < 400; i++) {
        if (on_label(vt, text, &n)) return n;
        snprintf(before, sizeof before, "%s", vt_row_text(vt, vt_status_row(vt)));
        if (last && !strcmp(before, last)) break;
        vt_send(vt, "j");
        if (vt_wait_change(vt, vt_status_row(vt), before, 0) != 0) break;
    }
    return on_label(vt, text, &n) ? n : -1;
}

static long goto_label(struct vt *vt, const char *text) {
    char last[2048];
    last_label(vt, last, sizeof last);
    return goto_label_from(vt, text, last);
}

static int open_pane(struct vt *vt, int cols, int rows, const char *const *args) {
    if (vt_spawn_app(vt, cols, rows, args, NULL) != 0) return -1;
    VT_WAIT(vt, vt_has(vt, "Heat map"));
    vt_send(vt, "<F4>");
    VT_WAIT(vt, header_row(vt) >= 0 && shown_targets(vt, NULL) > 0);
    if (header_row(vt) < 0) {
        vt_dump(vt, stderr);
        return -1;
    }
    return 0;
}

/* Walks the whole label column (PgDn to the end), collecting the category
 * headings in order and checking every label row's count. */
static int categories(struct vt *vt, long total, char heads[][16], int max) {
    int n = 0;
    char last[2048];
    for (int page = 0; page < 50; page++) {
        if (page == 1) {
            /* where the walk ends; G then g, back on the first page */
            last_label(vt, last, sizeof last);
            continue;
        }
        for (int r = body_top(vt); r < vt_status_row(vt); r++) {
            char left[1024], right[1024];
            columns(vt, r, left, right, sizeof left);
            if (!left[0]) continue;
            if (left[0] != ' ' && (unsigned char)left[0] < 0x80 && !strchr(left, '[')) {
                char h[16];
                snprintf(h, sizeof h, "%.15s", left);
                for (char *q = h + strlen(h); q > h && q[-1] == ' ';) *--q = '\0';
                if (n == 0 || strcmp(heads[n - 1], h) != 0) {
                    bool seen = false;
                    for (int k = 0; k < n; k++) seen |= !strcmp(heads[k], h);
                    if (!seen && n < max) snprintf(heads[n++], 16, "%s", h);
                }
                continue;
            }
            /* a label: "[ ] TEXT   COUNT" */
            CHECK(strstr(left, "[ ] ") || strstr(left, "[x] "));
            const char *end = left + strlen(left);
            while (end > left && end[-1] == ' ') end--;
            const char *num = end;
            while (num > left && isdigit((unsigned char)num[-1])) num--;
            long c = num < end ? atol(num) : -1;
            if (!(c > 0 && c <= total)) fprintf(stderr, "label row \"%s\": count %ld of %ld\n", left, c, total);
            CHECK(c > 0 && c <= total);
        }
        char before[2048];
        snprintf(before, sizeof before, "%s", vt_row_text(vt, vt_status_row(vt)));
        if (page == 0) continue;
        if (!strcmp(before, last)) break;
        vt_send(vt, "<PgDn>");
        if (vt_wait_change(vt, vt_status_row(vt), before, 0) != 0) break;
    }
    return n;
}

/* Every target row of the right column contains all of want[] (case as
 * given); returns the number of target rows, -1 when one lacks a word. */
static int targets_with(struct vt *vt, const char *const *want, bool nocase) {
    int n = 0;
    for (int r = body_top(vt); r < vt_status_row(vt); r++) {
        char left[1024], right[1024];
        columns(vt, r, left, right, sizeof left);
        const char *t = right;
        while (*t == ' ') t++;
        if (!*t || !strncmp(t, "no target", 9)) continue;
        if (!strncmp(t, "\xe2\x96\xb6", 3)) t += 3;   /* focus mark */
        for (int k = 0; want[k]; k++) {
            bool has = false;
            for (const char *p = t; *p && !has; p++) has = nocase ? !strncasecmp(p, want[k], strlen(want[k])) : !strncmp(p, want[k], strlen(want[k]));
            if (!has) {
                fprintf(stderr, "target row %d \"%s\" lacks \"%s\"\n", r, t, want[k]);
                return -1;
            }
        }
        n++;
    }
    return n;
}

/* Heat-map rows (between the x axis and the legend): each contains every
 * word of want[]; returns how many rows, -1 when one does not. */
static int heat_rows_with(struct vt *vt, const char *const *want) {
    int t, l = vt_status_row(vt);
    if (!vt_find(vt, "Heat map", &t, NULL)) return -1;
    vt_find_from(vt, "+Inf - -Inf", t + 2, &l, NULL);
    int n = 0;
    for (int r = t + 2; r < l; r++) {
        const char *row = vt_row_text(vt, r);
        if (!row[0]) continue;
        for (int k = 0; want[k]; k++)
            if (!strstr(row, want[k])) {
                fprintf(stderr, "heat-map row %d \"%s\" lacks \"%s\"\n", r, row, want[k]);
                return -1;
            }
        n++;
    }
    return n;
}

/* The look of a cell (what a viewer can tell apart). */
static uint64_t look(struct vt *vt, int row, int col) {
    struct vt_cell c;
    if (vt_cell(vt, row, col, &c) != 0) return 0;
    return ((uint64_t)vt_cell_ink(&c) << 32) ^ vt_cell_paper(&c) ^ ((uint64_t)c.bold << 60) ^ ((uint64_t)c.underline << 61);
}

/* In the right column, a row showing `name` in full: the cells of `part`
 * (its first occurrence, case as given) look different from the name's
 * first cell (the highlight).  Returns 1 when
 * highlighted, 0 when not, -1 when no row shows name. */
static int highlighted(struct vt *vt, const char *name, const char *part) {
    for (int r = body_top(vt); r < vt_status_row(vt); r++) {
        int split = vt_col_of(vt, r, VLINE);
        int col = vt_col_of(vt, r, name);
        if (split < 0 || col <= split) continue;
        const char *p = strstr(name, part);
        if (!p || p == name) return -1;
        int at = col + (int)(p - name);
        uint64_t plain = look(vt, r, col), hit = look(vt, r, at);
        for (size_t k = 1; k < strlen(part); k++)
            if (look(vt, r, at + (int)k) != hit) return 0;
        return hit != plain;
    }
    return -1;
}

/* Sends a `/` pattern, the prompt emptied first (it opens empty; C-u
 * makes sure). */
static void search(struct vt *vt, const char *pattern) {
    char keys[512];
    vt_send(vt, "/");
    VT_WAIT(vt, vt_row_text(vt, msg_row(vt))[0] == '/');
    vt_send(vt, "<C-u>");
    VT_WAIT(vt, !strcmp(vt_row_text(vt, msg_row(vt)), "/"));
    size_t k = 0;
    for (const char *p = pattern; *p && k + 6 < sizeof keys; p++) {
        if (*p == '<') { memcpy(keys + k, "<lt>", 4); k += 4; }
        else keys[k++] = *p;
    }
    keys[k] = '\0';
    vt_send(vt, keys);
    vt_send(vt, "<Enter>");
}

static void test_quick_start(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_fixture(QUICK_START);
    if (!dir) SKIP("quick_start fixture absent");
    const char *args[] = { dir, NULL };
    struct vt vt;
    if (open_pane(&vt, 80, 24, args) != 0) {
        CHECK(0);
        return;
    }
    long total = 0, shown = shown_targets(&vt, &total);
    CHECKV(&vt, shown > 0 && shown == total);
    CHECKV(&vt, header_has(&vt, "Labels none") && header_has(&vt, "Regex none (ignore case)"));

    /* categories in the documented order, each label with a count */
    char heads[8][16];
    int nh = categories(&vt, total, heads, 8);
    static const char *const order[] = { "default", "function", "index", "layer", "module" };
    int k = 0;
    for (int i = 0; i < nh; i++) {
        while (k < 5 && strcmp(order[k], heads[i]) != 0) k++;
        if (k == 5) fprintf(stderr, "unexpected or out-of-order category \"%s\"\n", heads[i]);
        CHECK(k < 5);
    }
    bool has_def = false, has_fn = false, has_idx = false, has_mod = false;
    for (int i = 0; i < nh; i++) {
        has_def |= !strcmp(heads[i], "default");
        has_fn |= !strcmp(heads[i], "function");
        has_idx |= !strcmp(heads[i], "index");
        has_mod |= !strcmp(heads[i], "module");
    }
    CHECK(has_def && has_fn && has_idx && has_mod);

    /* g from the bottom: the first label with its category heading above */
    char last[2048];
    last_label(&vt, last, sizeof last);
    {
        char left[1024], right[1024];
        columns(&vt, body_top(&vt), left, right, sizeof left);
        if (strncmp(left, "default", 7) != 0) fprintf(stderr, "after G g the picker starts with \"%s\"\n", left);
        CHECKV(&vt, !strncmp(left, "default", 7));
    }

    /* one label: exactly its count of targets, each carrying it */
    long k1 = goto_label(&vt, "Functional.conv2d");
    CHECKV(&vt, k1 > 0);
    vt_send(&vt, " ");
    char want[256];
    snprintf(want, sizeof want, "%ld of %ld targets", k1, total);
    VT_WAIT(&vt, header_has(&vt, want));
    CHECKV(&vt, header_has(&vt, "Labels function:Functional.conv2d ") && header_has(&vt, want));
    static const char *const conv[] = { "Functional.conv2d.", NULL };
    CHECKV(&vt, targets_with(&vt, conv, false) > 0);
    CHECKV(&vt, on_label(&vt, "Functional.conv2d", NULL) && vt_row_has(&vt, vt_status_row(&vt), "(selected)"));

    /* a second: AND */
    long k2 = goto_label(&vt, "output.0");
    CHECKV(&vt, k2 > 0);
    vt_send(&vt, " ");
    VT_WAIT(&vt, header_has(&vt, "AND index:output.0"));
    CHECKV(&vt, header_has(&vt, "Labels function:Functional.conv2d AND index:output.0"));
    /* the count stays readable with two labels selected */
    long m = shown_targets(&vt, NULL);
    CHECKV(&vt, m > 0 && m < k1 && m < k2);
    if (m <= 0) m = k1 < k2 ? k1 : k2;   /* (only bounds below) */
    static const char *const both[] = { "Functional.conv2d.", "output.0", NULL };
    int listed = targets_with(&vt, both, false);
    CHECKV(&vt, listed > 0 && listed <= m);

    /* the heat map: only rows carrying both labels */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "labels"));
    CHECKV(&vt, vt_row_has(&vt, 0, "labels function:Functional.conv2d AND"));
    static const char *const hm[] = { "conv2d", "out", NULL };
    int hrows = heat_rows_with(&vt, hm);
    CHECKV(&vt, hrows > 0 && hrows <= m);
    long ny = -1;
    int hm_title;
    if (vt_find(&vt, "y target (", &hm_title, NULL)) {
        const char *p = strstr(vt_row_text(&vt, hm_title), "y target (");
        ny = atol(p + 10);
    }
    CHECKV(&vt, ny > 0 && ny <= m);

    /* c clears the labels */
    vt_send(&vt, "<F4>");
    VT_WAIT(&vt, header_row(&vt) >= 0);
    vt_send(&vt, "c");
    snprintf(want, sizeof want, "%ld of %ld targets", total, total);
    VT_WAIT(&vt, header_has(&vt, "Labels none") && header_has(&vt, want));
    CHECKV(&vt, header_has(&vt, "Labels none") && header_has(&vt, want));

    /* `/`: the regex filters and highlights, the cursor goes to the first
     * matching label */
    search(&vt, "conv");
    VT_WAIT(&vt, header_has(&vt, "Regex /conv/"));
    CHECKV(&vt, header_has(&vt, "Regex /conv/ (ignore case)"));
    long r = shown_targets(&vt, NULL);
    CHECKV(&vt, r > 0 && r < total);
    static const char *const cv[] = { "conv", NULL };
    CHECKV(&vt, targets_with(&vt, cv, true) > 0);
    CHECKV(&vt, highlighted(&vt, "Functional.conv2d.input.0", "conv") == 1);
    CHECKV(&vt, highlighted(&vt, "Module.conv1.Conv2d.input.0", "Conv") == 1);   /* caseless: both */
    VT_WAIT(&vt, ci_find(vt_row_text(&vt, vt_status_row(&vt)), "conv") != NULL);
    char first[512];
    snprintf(first, sizeof first, "%s", vt_row_text(&vt, vt_status_row(&vt)));
    CHECKV(&vt, strstr(first, " label ") && ci_find(strstr(first, " label "), "conv"));
    /* n: the next matching label, N: back */
    vt_send(&vt, "n");
    CHECK(vt_wait_change(&vt, vt_status_row(&vt), first, 0) == 0);
    const char *second = vt_row_text(&vt, vt_status_row(&vt));
    CHECKV(&vt, strstr(second, " label ") && ci_find(strstr(second, " label "), "conv"));
    vt_send(&vt, "N");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, vt_status_row(&vt)), first));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, vt_status_row(&vt)), first));

    /* case: ignored by default; i makes it matter */
    search(&vt, "CONV");
    VT_WAIT(&vt, header_has(&vt, "Regex /CONV/"));
    snprintf(want, sizeof want, "%ld of %ld targets", r, total);
    CHECKV(&vt, header_has(&vt, "Regex /CONV/ (ignore case)") && header_has(&vt, want));
    vt_send(&vt, "i");
    snprintf(want, sizeof want, " 0 of %ld targets", total);
    VT_WAIT(&vt, header_has(&vt, "(case-sensitive)"));
    CHECKV(&vt, header_has(&vt, "(case-sensitive)") && header_has(&vt, want));
    CHECKV(&vt, vt_has(&vt, "no target passes the filters"));
    vt_send(&vt, "i");
    snprintf(want, sizeof want, "%ld of %ld targets", r, total);
    VT_WAIT(&vt, header_has(&vt, "(ignore case)") && header_has(&vt, want));
    CHECKV(&vt, header_has(&vt, "(ignore case)") && header_has(&vt, want));

    /* an invalid pattern: PCRE2's message and the column; the filter stays */
    search(&vt, "ab)cd");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "column"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "column 3") && vt_row_has(&vt, msg_row(&vt), "unmatched closing parenthesis"));
    CHECKV(&vt, header_has(&vt, "Regex /CONV/") && header_has(&vt, want));
    search(&vt, "(");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "missing closing parenthesis"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "column") && vt_row_has(&vt, msg_row(&vt), "missing closing parenthesis"));
    CHECKV(&vt, header_has(&vt, "Regex /CONV/") && header_has(&vt, want));

    /* catastrophic backtracking: stopped at PCRE2's limit, reported, the
     * filter stays, and the next key is answered */
    double t0 = vt_now();
    search(&vt, "^(\\w+\\.?)*\\s");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "too complex") || vt_row_has(&vt, msg_row(&vt), "limit"));
    fprintf(stderr, "   catastrophic pattern answered in %.2f s\n", vt_now() - t0);
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "too complex") || vt_row_has(&vt, msg_row(&vt), "limit"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "limit"));   /* which limit, readable at 80 columns */
    CHECKV(&vt, header_has(&vt, "Regex /CONV/") && header_has(&vt, want));
    char before[2048];
    snprintf(before, sizeof before, "%s", vt_row_text(&vt, vt_status_row(&vt)));
    vt_send(&vt, "j");
    CHECKV(&vt, vt_wait_change(&vt, vt_status_row(&vt), before, 0) == 0);

    /* the prompt's history: Up walks back, Down forward, Esc leaves it */
    vt_send(&vt, "/");
    VT_WAIT(&vt, vt_row_text(&vt, msg_row(&vt))[0] == '/');
    vt_send(&vt, "<C-u>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/"));
    vt_send(&vt, "<Up>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/^(\\w+\\.?)*\\s"));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/^(\\w+\\.?)*\\s"));
    vt_send(&vt, "<Up>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/("));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/("));
    vt_send(&vt, "<Up>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/ab)cd"));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/ab)cd"));
    vt_send(&vt, "<Down>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/("));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/("));
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, vt_row_text(&vt, msg_row(&vt))[0] != '/');
    CHECKV(&vt, vt_row_text(&vt, msg_row(&vt))[0] != '/');
    CHECKV(&vt, header_has(&vt, "Regex /CONV/") && header_has(&vt, want));
    /* x clears the regex */
    vt_send(&vt, "x");
    snprintf(want, sizeof want, "%ld of %ld targets", total, total);
    VT_WAIT(&vt, header_has(&vt, "Regex none") && header_has(&vt, want));
    CHECKV(&vt, header_has(&vt, "Regex none") && header_has(&vt, want));
    pt_vt_quit(&vt);
}

/* The demo: every category; a layer AND a module leave that module of that
 * layer in the heat map; a match inside a long name is visible. */
static void test_demo(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL };
    struct vt vt;
    if (open_pane(&vt, 80, 24, args) != 0) {
        CHECK(0);
        return;
    }
    long total = 0, shown = shown_targets(&vt, &total);
    CHECKV(&vt, shown == total && total > 0);
    char heads[8][16];
    int nh = categories(&vt, total, heads, 8);
    static const char *const order[] = { "default", "function", "index", "layer", "module" };
    CHECK_INT(nh, 5);
    for (int i = 0; i < nh && i < 5; i++) CHECK_STR(heads[i], order[i]);

    long kl = goto_label(&vt, "layers.5");
    CHECKV(&vt, kl > 0);
    vt_send(&vt, " ");
    VT_WAIT(&vt, header_has(&vt, "layer:layers.5"));
    long km = goto_label(&vt, "mlp.linear_fc2.RowParallelLinear");
    CHECKV(&vt, km > 0);
    vt_send(&vt, " ");
    /* "Labels " + this 57-column selection + the count do not fit 80
     * columns: the selection is cut, the count stays whole */
    VT_WAIT(&vt, header_has(&vt, "layer:layers.5 AND module:mlp.linear_fc2"));
    CHECKV(&vt, header_has(&vt, "layer:layers.5 AND module:mlp.linear_fc2"));
    long m = shown_targets(&vt, NULL);
    CHECKV(&vt, m >= 1 && m <= km && m < kl);   /* the count stays readable */
    if (m < 1) m = km;
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "labels"));
    static const char *const hm[] = { "L5", "fc2", NULL };
    int hrows = heat_rows_with(&vt, hm);
    CHECKV(&vt, hrows >= 1 && hrows <= m);
    vt_send(&vt, "<F4>");
    VT_WAIT(&vt, header_row(&vt) >= 0);
    vt_send(&vt, "c");
    VT_WAIT(&vt, header_has(&vt, "Labels none"));

    /* a regex matching deep inside names longer than the column: the
     * matched part is on screen, highlighted */
    search(&vt, "linear_fc2");
    VT_WAIT(&vt, header_has(&vt, "Regex /linear_fc2/"));
    long r = shown_targets(&vt, NULL);
    CHECKV(&vt, r >= 8);
    int visible = 0, rows = 0;
    for (int y = body_top(&vt); y < vt_status_row(&vt); y++) {
        char left[1024], right[1024];
        columns(&vt, y, left, right, sizeof left);
        if (!right[0] || strstr(right, "no target")) continue;
        rows++;
        if (strstr(right, "fc2")) visible++;
    }
    CHECKV(&vt, rows > 0 && visible == rows);
    pt_vt_quit(&vt);
}

/* screenshots/search.svg: quick_start, label output.0 selected, /conv/. */
static void test_shot(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_fixture(QUICK_START);
    if (!dir) SKIP("quick_start fixture absent");
    const char *args[] = { dir, NULL };
    struct vt vt;
    if (open_pane(&vt, 100, 30, args) != 0) {
        CHECK(0);
        return;
    }
    /* (from the first label down: a label that is there, so no end needed) */
    CHECKV(&vt, goto_label_from(&vt, "output.0", NULL) > 0);
    vt_send(&vt, " ");
    VT_WAIT(&vt, header_has(&vt, "index:output.0"));
    search(&vt, "conv");
    VT_WAIT(&vt, header_has(&vt, "Regex /conv/"));
    vt_send(&vt, "l");   /* the target column focused */
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "target "));
    CHECKV(&vt, header_has(&vt, "index:output.0") && header_has(&vt, "Regex /conv/") &&
                 vt_row_has(&vt, vt_status_row(&vt), "target "));
    CHECK(vt_shot(&vt, "search", "probetop quick_start/gpu_dump: the search pane (F4), label output.0 AND /conv/") >= 0);
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_quick_start);
    RUN(test_demo);
    RUN(test_shot);
    PT_DONE();
}
