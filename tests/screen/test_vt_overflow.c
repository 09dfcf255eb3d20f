/* test_vt_overflow: the overflow pane (F3) as a user sees it at 80x24
 * (probetop(1), Overflow pane (F3)): filters, F, Enter; screenshots.
 *
 * The data is made by the test: gen_dump.py plants a NaN at step 1 rank 1
 * in layers.1.self_attention (two steps, two ranks, a tiny model).  What
 * the pane must show is not written here: `probetop overflow --format csv`
 * on the same directory gives the entries in order, and the pane is checked
 * against them (header counts, the step x rank grid, the rows under each
 * filter, the first occurrence).  A copy without construct.json has no
 * graph, so Enter there must land on the heat-map cell; the demo has no
 * dump records at all, so the pane must say levels are not available and
 * list the non-finite cells.  The criticals come first and the
 * numeric-jump records (the sums of every step and rank, also in a healthy
 * run generated without --nan) are grouped, one row per name, at the end.
 * Every step waits for the state it asserts, then asserts it. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
/* Waits for cond, then asserts it: a wait that times out fails. */
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

#define GEN_ARGS "--steps 2 --ranks 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 --vocab 100 " \
                 "--nan 1:1:layers.1.self_attention --quiet"
#define CLEAN_ARGS "--steps 3 --ranks 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 --vocab 100 --quiet"

/* UTF-8 glyphs of the level marks (views/overflow.c). */
#define G_CRIT "\xe2\x96\x88"    /* full block */
#define G_HIGH "\xe2\x96\x93"    /* dark shade */
#define G_MED "\xe2\x96\x91"     /* light shade */
#define G_CLEAN "\xc2\xb7"       /* middle dot */
#define G_JUMP "\xe2\x88\xbc"     /* tilde operator: numeric-jump records only */

enum { L_MED = 1, L_HIGH = 2, L_CRIT = 3 };   /* worst-first ordering by value */

/* ---- the headless answer ---- */

struct ent {
    int level;              /* L_* */
    int group;              /* a numeric-jump row: records, steps, ranks are the group's */
    size_t records;
    int steps, ranks;
    int step, micro, rank;  /* micro -1 when unknown */
    unsigned pos;
    char name[512];
    char what[256];
};

struct ovf {
    struct ent *v;
    size_t n;
    size_t count[4];
};

static int level_of(const char *s) {
    if (!strcmp(s, "critical")) return L_CRIT;
    if (!strcmp(s, "high")) return L_HIGH;
    if (!strcmp(s, "medium")) return L_MED;
    return 0;
}

static char level_letter(int l) { return l == L_CRIT ? 'C' : l == L_HIGH ? 'H' : l == L_MED ? 'M' : '?'; }

/* Splits one CSV line into at most max fields (quotes as RFC 4180). */
static int csv_split(char *line, char **f, int max) {
    int n = 0;
    char *p = line, *w;
    while (n < max) {
        f[n++] = w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') { *w++ = '"'; p += 2; }
                else if (*p == '"') { p++; break; }
                else if (!*p) break;
                else *w++ = *p++;
            }
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r') *w++ = *p++;
        }
        char sep = *p;
        *w = '\0';
        if (sep != ',') break;
        p++;
    }
    return n;
}

/* `probetop overflow DIR --format csv`, every row in order.  want_rc is
 * the exit code expected (1: a NaN is there; 0: a healthy run). */
static int headless_rc(const char *dir, struct ovf *o, int want_rc) {
    char cmd[8600], line[4096];
    memset(o, 0, sizeof *o);
    snprintf(cmd, sizeof cmd, "'%s' overflow '%s' --format csv 2>/dev/null", vt_bin(), dir);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    size_t cap = 0;
    int header = 1;
    while (fgets(line, sizeof line, f)) {
        char *fld[12];
        if (header) { header = 0; continue; }
        if (csv_split(line, fld, 12) != 11) continue;
        if (o->n == cap) {
            cap = cap ? cap * 2 : 256;
            struct ent *nv = realloc(o->v, cap * sizeof *nv);
            if (!nv) break;
            o->v = nv;
        }
        struct ent *e = &o->v[o->n];
        e->level = level_of(fld[0]);
        e->step = atoi(fld[1]);
        e->micro = fld[2][0] ? atoi(fld[2]) : -1;
        e->rank = atoi(fld[3]);
        e->pos = (unsigned)strtoul(fld[4], NULL, 10);
        snprintf(e->name, sizeof e->name, "%s", fld[5]);
        snprintf(e->what, sizeof e->what, "%s", fld[6]);
        e->group = !strcmp(fld[7], "numeric_jump");
        e->records = strtoul(fld[8], NULL, 10);
        e->steps = atoi(fld[9]);
        e->ranks = atoi(fld[10]);
        if (e->level) {
            o->count[e->level] += e->records;
            o->n++;
        }
    }
    int st = pclose(f);
    return WIFEXITED(st) && WEXITSTATUS(st) == want_rc && o->n ? 0 : -1;
}

static int headless(const char *dir, struct ovf *o) {
    return headless_rc(dir, o, 1);
}

/* The first critical entry (there is one: the planted NaN). */
static const struct ent *first_critical(const struct ovf *o) {
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i].level == L_CRIT) return &o->v[i];
    return NULL;
}

/* ---- the data ---- */

static char dir_full[4200], dir_nograph[4200], dir_clean[4200];

/* Makes both directories once; 0 ok, -1 (skip) when the generator is not
 * there. */
static int make_data(void) {
    static int made;
    if (made) return made > 0 ? 0 : -1;
    made = -1;
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    char gen[4200], cmd[13000];
    if (!py || !py[0] || !s) return -1;
    snprintf(gen, sizeof gen, "%s/tools/gen_dump.py", s);
    if (access(gen, R_OK) != 0) return -1;
    const char *tmp = pt_tmpdir("vt_overflow");
    if (!tmp) return -1;
    snprintf(dir_full, sizeof dir_full, "%s/nan", tmp);
    snprintf(dir_nograph, sizeof dir_nograph, "%s/nan-nograph", tmp);
    snprintf(dir_clean, sizeof dir_clean, "%s/clean", tmp);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --out '%s' " GEN_ARGS " >/dev/null 2>&1 && cp -r '%s' '%s' && "
             "find '%s' -name construct.json -exec rm -f {} + && "
             "'%s' '%s' --out '%s' " CLEAN_ARGS " >/dev/null 2>&1",
             py, gen, dir_full, dir_full, dir_nograph, dir_nograph, py, gen, dir_clean);
    if (system(cmd) != 0) return -1;
    made = 1;
    return 0;
}

/* ---- reading the pane ---- */



static int msg_row(struct vt *vt) { return vt->rows - 1; }

/* The pane's header: the row naming the levels (or the non-finite count). */
static int header_row(struct vt *vt) {
    int r;
    if (vt_find(vt, "critical", &r, NULL) && r < 3) return r;
    if (vt_find(vt, "non-finite cells", &r, NULL) && r < 3) return r;
    return -1;
}

/* The column-title row above the list. */
static int titles_row(struct vt *vt) {
    int r;
    return vt_find(vt, "lvl rank micro", &r, NULL) ? r : -1;
}

/* Skips one UTF-8 character. */
static const char *next_glyph(const char *p) {
    if (!*p) return p;
    p++;
    while ((*p & 0xc0) == 0x80) p++;
    return p;
}

/* One list row parsed: 0 for a heading (step set; -2 for the numeric-jump
 * heading), 1 for an entry or a numeric-jump group, -1 for anything else
 * (blank, message). */
struct shown {
    int focus;
    int group;         /* "jump xN" instead of rank, micro, position */
    size_t count;
    char mark[8];      /* the mark glyph (UTF-8) */
    char letter;
    int rank;
    char micro[16];
    unsigned pos;
    const char *rest;  /* name and what */
};

static int parse_row(const char *row, int *step, struct shown *s) {
    const char *h = strstr(row, " step ");
    if (h && !strstr(row, " rank") && sscanf(h, " step %d", step) == 1 && (row[0] & 0x80)) return 0;
    if ((row[0] & 0x80) && strstr(row, " numeric jump: msProbe heuristic")) {
        *step = -2;
        return 0;
    }
    if (!row[0]) return -1;
    const char *p = row;
    s->focus = *p != ' ';
    p = next_glyph(p);
    const char *m = next_glyph(p);
    if ((size_t)(m - p) >= sizeof s->mark) return -1;
    memcpy(s->mark, p, (size_t)(m - p));
    s->mark[m - p] = '\0';
    s->letter = *m;
    if (!*m) return -1;
    int used = 0;
    s->group = 0;
    if (sscanf(m + 1, " jump x%zu%n", &s->count, &used) == 1) {
        s->group = 1;
        s->rank = -1;
        s->micro[0] = '\0';
        s->pos = 0;
    } else if (sscanf(m + 1, "%d %15s %u%n", &s->rank, s->micro, &s->pos, &used) != 3) {
        return -1;
    }
    s->rest = m + 1 + used;
    while (*s->rest == ' ') s->rest++;
    return 1;
}

/* The entries a filter lets through, in order. */
struct filt {
    unsigned levels;   /* bit L_* set: shown */
    int rank, step;    /* -1: all */
};

static bool passes(const struct filt *f, const struct ent *e) {
    return (f->levels >> e->level & 1) && (f->rank < 0 || e->rank == f->rank) && (f->step < 0 || e->step == f->step);
}

#define ALL_LEVELS ((1u << L_CRIT) | (1u << L_HIGH) | (1u << L_MED))

/* The first `prefix` chars of name are on the row (a long name is cut in
 * the middle, its start stays). */
static bool name_on_row(const char *rest, const char *name) {
    char head[16];
    snprintf(head, sizeof head, "%.12s", name);
    return strncmp(rest, head, strlen(head)) == 0;
}

/* The name column of a row is name: the whole of it, or its start and end
 * around the "…" of a cut. */
static bool name_is(const char *rest, const char *name) {
    const char *end = strstr(rest, "  ");
    size_t len = end ? (size_t)(end - rest) : strlen(rest);
    const char *cut = strstr(rest, "\xe2\x80\xa6");
    if (!cut || cut >= rest + len) return len == strlen(name) && !strncmp(rest, name, len);
    size_t head = (size_t)(cut - rest), tail = len - head - 3, n = strlen(name);
    return head + tail < n && !strncmp(rest, name, head) && !strncmp(cut + 3, name + n - tail, tail);
}

/* The list from its top (the caller pressed g) matches the headless
 * entries under filter f: step headings, level letter, rank, position,
 * the start of the name.  verbose says what differs. */
static bool list_matches(struct vt *vt, const struct ovf *o, const struct filt *f, bool verbose) {
    int t = titles_row(vt);
    if (t < 0) {
        if (verbose) fprintf(stderr, "list: no column titles\n");
        return false;
    }
    size_t i = 0;
    int step = -1, rows = 0;
    for (int r = t + 1; r < vt_status_row(vt); r++) {
        struct shown s;
        const char *row = vt_row_text(vt, r);
        int k = parse_row(row, &step, &s);
        if (k < 0) break;
        if (k == 0) continue;
        if (s.group && (f->rank >= 0 || f->step >= 0)) {
            /* a group counts the records the rank / step filter lets
             * through (a part of the headless group of its name), in the
             * order of its earliest record there */
            size_t j = 0;
            while (j < o->n && !(o->v[j].group && name_is(s.rest, o->v[j].name) && (f->levels >> o->v[j].level & 1)))
                j++;
            if (j >= o->n || s.count > o->v[j].records || s.letter != level_letter(o->v[j].level)) {
                if (verbose) fprintf(stderr, "list row %d: \"%s\": no such group\n", r, row);
                return false;
            }
            rows++;
            continue;
        }
        while (i < o->n && !passes(f, &o->v[i])) i++;
        if (i >= o->n) {
            if (verbose) fprintf(stderr, "list row %d: more rows than entries: %s\n", r, row);
            return false;
        }
        const struct ent *e = &o->v[i];
        if (s.group != e->group || (s.group && (s.count != e->records || step != -2)) ||
            s.letter != level_letter(e->level) || (!s.group && (s.rank != e->rank || s.pos != e->pos || step != e->step)) ||
            !name_on_row(s.rest, e->name)) {
            if (verbose)
                fprintf(stderr, "list row %d: \"%s\" (step %d) but entry %zu is %c step %d rank %d pos %u %s\n", r, row,
                        step, i, level_letter(e->level), e->step, e->rank, e->pos, e->name);
            return false;
        }
        rows++;
        i++;
    }
    /* the list fills the pane unless the entries ran out */
    while (i < o->n && !passes(f, &o->v[i])) i++;
    if (rows == 0 && i < o->n) {
        if (verbose) fprintf(stderr, "list: empty, but entries pass the filter\n");
        return false;
    }
    return true;
}

static bool check_list(struct vt *vt, const struct ovf *o, const struct filt *f) {
    VT_WAIT(vt, list_matches(vt, o, f, false));
    bool ok = list_matches(vt, o, f, true);
    if (!ok) vt_dump(vt, stderr);
    return ok;
}

/* The header's count text for a level, e.g. "critical 7" or with
 * "(hidden)" after it. */
static void level_text(char *buf, size_t size, const char *name, size_t n, bool hidden) {
    /* a shown level is followed by at least one space (three when the row has room) */
    snprintf(buf, size, "%s %zu%s", name, n, hidden ? " (hidden)" : " ");
}

static bool header_says(struct vt *vt, const struct ovf *o, unsigned levels, const char *rank, const char *step) {
    int h = header_row(vt);
    char buf[64];
    if (h < 0) return false;
    level_text(buf, sizeof buf, "1 critical", o->count[L_CRIT], !(levels >> L_CRIT & 1));
    if (!vt_row_has(vt, h, buf)) return false;
    level_text(buf, sizeof buf, "2 high", o->count[L_HIGH], !(levels >> L_HIGH & 1));
    if (!vt_row_has(vt, h, buf)) return false;
    level_text(buf, sizeof buf, "3 medium", o->count[L_MED], !(levels >> L_MED & 1));
    if (!vt_row_has(vt, h, buf)) return false;
    snprintf(buf, sizeof buf, "rank %s  step %s", rank, step);
    return vt_row_has(vt, h, buf);
}

static void command(struct vt *vt, const char *cmd) {
    char keys[512];
    snprintf(keys, sizeof keys, ":%s<Enter>", cmd);
    vt_send(vt, keys);
}

/* Starts probetop on dir and opens the overflow screen. */
static int open_pane(struct vt *vt, int cols, int rows, const char *dir, const char *const *env) {
    const char *args[] = { dir, NULL };
    if (vt_spawn_app(vt, cols, rows, args, env) != 0) return -1;
    VT_WAIT(vt, vt_has(vt, "Heat map"));
    if (!vt_has(vt, "Heat map")) {
        vt_dump(vt, stderr);
        return -1;
    }
    vt_send(vt, "<F3>");
    VT_WAIT(vt, titles_row(vt) > 0 && header_row(vt) >= 0);
    if (titles_row(vt) <= 0 || header_row(vt) < 0) {
        vt_dump(vt, stderr);
        return -1;
    }
    return 0;
}

/* The ink of a header mark (the glyph before " 1 critical" etc.). */
static uint32_t mark_ink(struct vt *vt, const char *what) {
    int h = header_row(vt), col = vt_col_of(vt, h, what);
    struct vt_cell c;
    if (h < 0 || col < 2 || vt_cell(vt, h, col - 2, &c) != 0) return 0;
    return vt_cell_ink(&c);
}

/* The grid: one row per rank ("rank N"), one column per step, each cell
 * the worst level of the entries there. */
static void check_grid(struct vt *vt, const struct ovf *o, bool colour) {
    int worst[2][2] = { { 0 } };
    for (size_t i = 0; i < o->n; i++) {
        const struct ent *e = &o->v[i];
        if (e->group) continue;
        if (e->rank < 2 && e->step < 2 && e->level > worst[e->rank][e->step]) worst[e->rank][e->step] = e->level;
    }
    /* A numeric-jump group has one record per (step, rank) of its name; the
     * sums are on both steps and ranks (the one missing from step 1 rank 1
     * holds the NaN there: that cell is critical anyway).  The heuristic
     * never gives a cell a level's colour: a cell with numeric-jump records
     * only is marked apart (every cell of a healthy run has them). */
    int jumped[2][2] = { { 0 } };
    for (size_t i = 0; i < o->n; i++) {
        const struct ent *e = &o->v[i];
        if (!e->group) continue;
        CHECK(e->steps == 2 && e->ranks == 2);
        for (int r = 0; r < 2; r++)
            for (int st = 0; st < 2; st++) jumped[r][st] = 1;
    }
    CHECK(worst[1][1] == L_CRIT);   /* the planted NaN */
    uint32_t ink_crit = mark_ink(vt, " 1 critical"), ink_high = mark_ink(vt, " 2 high"),
             ink_med = mark_ink(vt, " 3 medium");
    if (colour) CHECK(ink_crit != ink_high && ink_crit != ink_med);
    int ruler;
    CHECKV(vt, vt_find(vt, "step   0", &ruler, NULL));
    for (int r = 0; r < 2; r++) {
        char lab[16];
        snprintf(lab, sizeof lab, "rank %d ", r);
        int y, x;
        CHECKV(vt, vt_find(vt, lab, &y, &x) && x == 0 && y == ruler + 1 + r);
        if (x != 0) continue;
        for (int s = 0; s < 2; s++) {
            struct vt_cell c;
            vt_cell(vt, y, (int)strlen(lab) + s, &c);
            int w = worst[r][s];
            const char *want = w == L_CRIT ? G_CRIT : w == L_HIGH ? G_HIGH : w == L_MED ? G_MED
                             : jumped[r][s] ? G_JUMP : G_CLEAN;
            if (strcmp(c.glyph, want) != 0)
                fprintf(stderr, "grid rank %d step %d: \"%s\", want \"%s\"\n", r, s, c.glyph, want);
            CHECK_STR(c.glyph, want);
            if (w && colour) CHECK(vt_cell_ink(&c) == (w == L_CRIT ? ink_crit : w == L_HIGH ? ink_high : ink_med));
            if (!w && jumped[r][s] && colour) CHECK(vt_cell_ink(&c) != ink_high && vt_cell_ink(&c) != ink_crit);
        }
    }
}

/* ---- the tests ---- */

/* Header, grid, list, level / rank / step filters, F and Enter on the dump
 * without a graph (Enter: the heat-map cell). */
static void test_dump(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct ovf o;
    CHECK_INT(headless(dir_nograph, &o), 0);
    const struct ent *fc = first_critical(&o);
    CHECK(fc != NULL);
    if (!fc) return;
    CHECK(fc->step == 1 && fc->rank == 1);
    /* planted in every micro batch of step 1 rank 1 only: no critical elsewhere */
    for (size_t i = 0; i < o.n; i++)
        if (o.v[i].level == L_CRIT) CHECK(o.v[i].step == 1 && o.v[i].rank == 1);

    struct vt vt;
    if (open_pane(&vt, 80, 24, dir_nograph, NULL) != 0) {
        CHECK(0);
        free(o.v);
        return;
    }
    struct filt f = { ALL_LEVELS, -1, -1 };
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    check_grid(&vt, &o, true);
    CHECK(check_list(&vt, &o, &f));
    /* the selected row is the first entry, and the status line describes it */
    char want[1024];
    snprintf(want, sizeof want, "step %d rank %d #%u %s", o.v[0].step, o.v[0].rank, o.v[0].pos, o.v[0].name);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), want));

    /* 2 hides the high entries, 3 the medium ones; again brings them back */
    vt_send(&vt, "2");
    f.levels &= ~(1u << L_HIGH);
    VT_WAIT(&vt, header_says(&vt, &o, f.levels, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, f.levels, "all", "all"));
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    vt_send(&vt, "3");
    f.levels &= ~(1u << L_MED);
    /* two levels hidden: the header still has room for the filters */
    WAIT_CHECK(&vt, header_row(&vt) >= 0 && strstr(vt_row_text(&vt, header_row(&vt)), "medium") &&
                 strstr(strstr(vt_row_text(&vt, header_row(&vt)), "medium"), "(hidden)"));
    CHECKV(&vt, header_says(&vt, &o, f.levels, "all", "all"));
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    vt_send(&vt, "2");
    f.levels |= 1u << L_HIGH;
    vt_send(&vt, "3");
    f.levels |= 1u << L_MED;
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));

    /* 1 hides critical; F finds the first occurrence anyway and shows it */
    vt_send(&vt, "1");
    f.levels &= ~(1u << L_CRIT);
    VT_WAIT(&vt, header_says(&vt, &o, f.levels, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, f.levels, "all", "all"));
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    vt_send(&vt, "F");
    snprintf(want, sizeof want, "first occurrence: critical at step %d, rank %d: %s", fc->step, fc->rank, fc->name);
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "first occurrence"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), want) || (strlen(want) > 80 && vt_row_has(&vt, msg_row(&vt), "first occurrence: critical at step 1, rank 1")));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    snprintf(want, sizeof want, "critical step %d rank %d #%u %s: %s", fc->step, fc->rank, fc->pos, fc->name, fc->what);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), want));
    /* the selected row: focus mark, critical mark, its rank and position */
    int sel = -1;
    for (int r = titles_row(&vt) + 1; r < vt_status_row(&vt); r++) {
        struct shown s;
        int step;
        if (parse_row(vt_row_text(&vt, r), &step, &s) == 1 && s.focus) sel = r;
    }
    CHECKV(&vt, sel > 0);
    if (sel > 0) {
        struct shown s;
        int step = -1;
        CHECK(parse_row(vt_row_text(&vt, sel), &step, &s) == 1);
        CHECK(s.letter == 'C' && !strcmp(s.mark, G_CRIT) && s.rank == fc->rank && s.pos == fc->pos);
        CHECK(name_on_row(s.rest, fc->name));
        /* the step heading above it */
        int hs = -1;
        for (int r = titles_row(&vt) + 1; r <= sel; r++) parse_row(vt_row_text(&vt, r), &hs, &s);
        CHECK_INT(hs, fc->step);
    }

    /* r: only the selected entry's rank; s: only its step (the selection
     * stays on the first occurrence) */
    vt_send(&vt, "r");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "1", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "1", "all"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "critical step 1 rank 1"));
    vt_send(&vt, "s");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "1", "1"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "1", "1"));
    f = (struct filt){ ALL_LEVELS, 1, 1 };
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    /* r again: every rank, still step 1 */
    vt_send(&vt, "r");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "1"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "1"));
    f.rank = -1;
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    /* the same filters as commands */
    command(&vt, "ovf-rank 0");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "0", "1"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "0", "1"));
    f.rank = 0;
    vt_send(&vt, "g");
    CHECK(check_list(&vt, &o, &f));
    command(&vt, "ovf-step all");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "0", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "0", "all"));
    command(&vt, "ovf-rank 7");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "no rank 7"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "no rank 7"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "0", "all"));   /* unchanged */
    vt_send(&vt, "c");
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));

    /* Enter on the first occurrence: no graph here, so its heat-map cell,
     * NaN in the status line at the planted step and rank */
    vt_send(&vt, "F");
    WAIT_CHECK(&vt, vt_row_has(&vt, vt_status_row(&vt), "critical step 1"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "step 1  rank 1"));
    CHECKV(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "step 1  rank 1  forward/"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "= NaN") || vt_row_has(&vt, vt_status_row(&vt), "Inf"));
    CHECKV(&vt, vt_has(&vt, "[NaN") || vt_has(&vt, "[+Inf") || vt_has(&vt, "[-Inf"));
    /* the cell is the record's output: Functional.linear.4.forward -> Functional.linear.output.0#4 */
    char api[512];
    snprintf(api, sizeof api, "%s", fc->name);
    char *dot = strstr(api, ".forward");
    if (dot) {
        *dot = '\0';
        dot = strrchr(api, '.');
        if (dot) *dot = '\0';
    }
    strncat(api, ".output.", sizeof api - strlen(api) - 1);
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), api));
    pt_vt_quit(&vt);
    free(o.v);
}

/* With construct.json the dump has a graph: Enter shows the record there
 * (when the graph pane exists), on the entry's step and rank; without a
 * graph pane, its heat-map cell. */
static void test_enter_graph(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct ovf o;
    CHECK_INT(headless(dir_full, &o), 0);
    const struct ent *fc = first_critical(&o);
    CHECK(fc && fc->step == 1 && fc->rank == 1 && fc->micro == 0);
    if (!fc) return;
    struct vt vt;
    if (open_pane(&vt, 80, 24, dir_full, NULL) != 0) {
        CHECK(0);
        free(o.v);
        return;
    }
    VT_WAIT(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    struct filt f = { ALL_LEVELS, -1, -1 };
    CHECK(check_list(&vt, &o, &f));
    vt_send(&vt, "F");
    char want[1024];
    /* one micro step per step: the step alone, as the heat map writes it */
    snprintf(want, sizeof want, "critical step %d rank %d #%u %s", fc->step, fc->rank, fc->pos, fc->name);
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), want));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), want));
    vt_send(&vt, "<Enter>");
    WAIT_CHECK(&vt, titles_row(&vt) < 0 && (vt_has(&vt, "Heat map") || vt_has(&vt, fc->name)));
    if (vt_has(&vt, "Heat map")) {
        fprintf(stderr, "   no graph pane: Enter showed the heat map\n");
        VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 1  rank 1  forward/"));
        CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 1  rank 1  forward/"));
        CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "= NaN") || vt_row_has(&vt, vt_status_row(&vt), "Inf"));
    } else {
        /* the graph pane: the record selected, in the graph of its own
         * step and rank (the title names them) */
        VT_WAIT(&vt, vt_row_has(&vt, 0, "step 1") && vt_row_has(&vt, 0, "rank 1"));
        CHECKV(&vt, vt_has(&vt, fc->name));
        CHECKV(&vt, vt_row_has(&vt, 0, "step 1") && vt_row_has(&vt, 0, "rank 1"));
    }
    pt_vt_quit(&vt);
    free(o.v);
}

/* NO_COLOR: not one coloured cell, and the levels still read by their
 * marks and letters. */
static void test_no_color(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct ovf o;
    CHECK_INT(headless(dir_nograph, &o), 0);
    const char *env[] = { "NO_COLOR=1", NULL };
    struct vt vt;
    if (open_pane(&vt, 80, 24, dir_nograph, env) != 0) {
        CHECK(0);
        free(o.v);
        return;
    }
    WAIT_CHECK(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    int h = header_row(&vt);
    CHECKV(&vt, vt_row_has(&vt, h, G_CRIT "C 1 critical") && vt_row_has(&vt, h, G_HIGH "H 2 high") &&
                 vt_row_has(&vt, h, G_MED "M 3 medium"));
    struct filt f = { ALL_LEVELS, -1, -1 };
    CHECK(check_list(&vt, &o, &f));   /* every row's letter is its level */
    int coloured = pt_vt_coloured_cells(&vt);
    CHECK_INT(coloured, 0);
    check_grid(&vt, &o, false);   /* glyphs per level; the inks are all the default */
    /* the critical rows after F, by letter */
    vt_send(&vt, "F");
    WAIT_CHECK(&vt, vt_row_has(&vt, vt_status_row(&vt), "critical step 1"));
    int crit_rows = 0;
    for (int r = titles_row(&vt) + 1; r < vt_status_row(&vt); r++)
        if (strstr(vt_row_text(&vt, r), G_CRIT "C ")) crit_rows++;
    CHECKV(&vt, crit_rows >= 1);
    pt_vt_quit(&vt);
    free(o.v);
}

/* The demo has no dump records: no levels, the non-finite cells listed,
 * the burst at step 9 on rank 5 first, Enter on its heat-map cell. */
static void test_demo(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F3>");
    WAIT_CHECK(&vt, header_row(&vt) >= 0 && titles_row(&vt) > 0);
    int h = header_row(&vt);
    CHECKV(&vt, h >= 0 && vt_row_has(&vt, h, "levels not available"));
    unsigned long cells = 0;
    CHECK(h >= 0 && sscanf(strstr(vt_row_text(&vt, h), " ") ? strstr(vt_row_text(&vt, h), " ") : "", " %lu non-finite", &cells) == 1);
    CHECK(cells > 0);
    /* the filter state is part of the header */
    CHECKV(&vt, vt_row_has(&vt, h, "rank all  step all"));
    /* rows: the "!" mark, a rank, the metric and statistic that are not finite */
    int t = titles_row(&vt), entries = 0;
    for (int r = t + 1; r < vt_status_row(&vt); r++) {
        struct shown s;
        int step = -1;
        if (parse_row(vt_row_text(&vt, r), &step, &s) != 1) continue;
        entries++;
        CHECK(s.letter == '!' && !strcmp(s.mark, G_CRIT));
        CHECK(strstr(s.rest, "nan") || strstr(s.rest, "inf"));
    }
    CHECKV(&vt, entries > 5);
    /* the grid merges rank pairs (8 ranks, few rows): the burst row r4-5
     * turns first, at step 9; the others later */
    int ruler;
    CHECKV(&vt, vt_find(&vt, "step   0", &ruler, NULL));
    for (int k = 0; k < 4; k++) {
        char lab[16];
        snprintf(lab, sizeof lab, "r%d-%d ", 2 * k, 2 * k + 1);
        int y, x, first = -1;
        if (!vt_find(&vt, lab, &y, &x) || x != 0) {
            CHECKV(&vt, 0);
            continue;
        }
        for (int s = 0; s < 16 && first < 0; s++) {
            struct vt_cell c;
            vt_cell(&vt, y, 7 + s, &c);
            if (strcmp(c.glyph, G_CLEAN) != 0) first = s;
        }
        if (k == 2) CHECK_INT(first, 9);
        else CHECK(first > 9);
    }
    /* levels cannot be toggled here, and the pane says why */
    vt_send(&vt, "1");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "levels are not available"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "levels are not available for this input"));
    /* F: the burst; the first non-finite value of step 9 on rank 5 is the
     * forward output of layers.5.mlp.linear_fc2 (model/cube/demo.h): everything
     * after it in that step, the backward pass included, follows from it */
    vt_send(&vt, "F");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "first occurrence"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "first occurrence: non-finite at step 9, rank 5"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "non-finite step 9 rank 5"));
    int sel = -1;
    for (int r = t + 1; r < vt_status_row(&vt); r++) {
        struct shown s;
        int step = -1;
        if (parse_row(vt_row_text(&vt, r), &step, &s) == 1 && s.focus) sel = r;
    }
    CHECKV(&vt, sel > t);
    if (sel > t) {
        struct shown s;
        int step = -1;
        parse_row(vt_row_text(&vt, sel), &step, &s);
        CHECK_INT(s.rank, 5);
        /* the row's description starts with the metric: a forward value */
        CHECKV(&vt, strstr(s.rest, "  forward ") != NULL);
    }
    /* Enter: its heat-map cell, the overflowing module (+Inf in the norm) */
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "step 9  rank 5"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 9  rank 5"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "= NaN") || vt_row_has(&vt, vt_status_row(&vt), "= +Inf") ||
                 vt_row_has(&vt, vt_status_row(&vt), "= -Inf"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "forward/norm = +Inf") &&
                 vt_row_has(&vt, msg_row(&vt), "layers.5.mlp.linear_fc2.RowParallelLinear.output.0"));
    pt_vt_quit(&vt);
}

/* screenshots/overflow.svg: the generated dump at 100x30 after F. */
static void test_shot(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct vt vt;
    if (open_pane(&vt, 100, 30, dir_full, NULL) != 0) {
        CHECK(0);
        return;
    }
    vt_send(&vt, "F");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "first occurrence: critical"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "first occurrence: critical at step 1, rank 1"));
    int rc = vt_shot(&vt, "overflow",
                     "probetop on gen_dump.py --nan 1:1:layers.1.self_attention: the overflow pane (F3), F = first occurrence");
    CHECK(rc >= 0);
    pt_vt_quit(&vt);
}

/* The list rows on screen, top to bottom (headings skipped): count, and
 * the row of the first one of each kind (-1 none). */
struct seen {
    int rows, first_crit, last_crit, first_other, first_group, jump_heading;
};

static struct seen scan_list(struct vt *vt) {
    struct seen z = { 0, -1, -1, -1, -1, -1 };
    int t = titles_row(vt), step = -1;
    for (int r = t + 1; t > 0 && r < vt_status_row(vt); r++) {
        struct shown s;
        int k = parse_row(vt_row_text(vt, r), &step, &s);
        if (k < 0) break;
        if (k == 0) {
            if (step == -2 && z.jump_heading < 0) z.jump_heading = r;
            continue;
        }
        z.rows++;
        if (s.group) {
            if (z.first_group < 0) z.first_group = r;
        } else if (s.letter == 'C') {
            if (z.first_crit < 0) z.first_crit = r;
            z.last_crit = r;
        } else if (z.first_other < 0) {
            z.first_other = r;
        }
    }
    return z;
}

/* The listing order (probetop-rules(7), OVERFLOW LEVELS) at 80x24: the
 * pane opens on the criticals (the planted op
 * selected), every critical above every other row, under a heading that
 * says so; the numeric-jump records are at the end, one row per name with
 * its count, steps and ranks as the headless listing has them. */
static void test_order(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct ovf o;
    CHECK_INT(headless(dir_nograph, &o), 0);
    const struct ent *fc = first_critical(&o);
    CHECK(fc != NULL && fc == &o.v[0]);   /* the headless listing starts with it too */
    size_t ngroups = 0, first_group = o.n;
    for (size_t i = 0; i < o.n; i++)
        if (o.v[i].group) {
            ngroups++;
            if (first_group == o.n) first_group = i;
        } else {
            CHECK(first_group == o.n);   /* no record after a group */
        }
    CHECK(ngroups >= 2);   /* the sums at least */
    struct vt vt;
    if (!fc || open_pane(&vt, 80, 24, dir_nograph, NULL) != 0) {
        CHECK(0);
        free(o.v);
        return;
    }
    struct filt f = { ALL_LEVELS, -1, -1 };
    /* the origin search runs in the background: its heading comes with it */
    WAIT_CHECK(&vt, vt_has(&vt, "origin, where the NaN/Inf was born"));
    WAIT_CHECK(&vt, list_matches(&vt, &o, &f, false));
    CHECK(list_matches(&vt, &o, &f, true));
    struct seen z = scan_list(&vt);
    CHECKV(&vt, z.first_crit == titles_row(&vt) + 2);   /* under the first heading */
    /* the origin (here the first critical too) under a heading of its own */
    CHECKV(&vt, vt_row_has(&vt, titles_row(&vt) + 1, "step 1: origin, where the NaN/Inf was born"));
    CHECKV(&vt, z.first_other < 0 || z.first_other > z.last_crit);
    struct shown s0;
    int st0 = -1;
    CHECKV(&vt, z.first_crit > 0 && parse_row(vt_row_text(&vt, z.first_crit), &st0, &s0) == 1 && s0.focus &&
                    s0.rank == fc->rank && s0.pos == fc->pos && name_is(s0.rest, fc->name));
    char want[1024];
    snprintf(want, sizeof want, "critical step %d rank %d #%u %s", fc->step, fc->rank, fc->pos, fc->name);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), want));
    /* the other NaN/Inf records under their own heading */
    CHECKV(&vt, vt_has(&vt, "step 1: NaN/Inf passed on or absorbed"));

    /* G: the end of the list, the groups */
    vt_send(&vt, "G");
    WAIT_CHECK(&vt, scan_list(&vt).first_group > 0 && scan_list(&vt).jump_heading > 0);
    z = scan_list(&vt);
    CHECKV(&vt, z.jump_heading >= 0 && z.jump_heading < z.first_group);
    CHECKV(&vt, vt_row_has(&vt, z.jump_heading, "numeric jump: msProbe heuristic, no NaN/Inf; one row per name"));
    CHECKV(&vt, z.first_crit < 0 || z.first_crit < z.first_group);
    /* the rows on screen from the first group down are the headless groups,
     * in order, with their counts and spans */
    size_t gi = first_group;
    int step = -1, checked = 0;
    for (int r = z.first_group; r > 0 && r < vt_status_row(&vt); r++) {
        struct shown s;
        if (parse_row(vt_row_text(&vt, r), &step, &s) != 1) break;
        CHECKV(&vt, s.group && s.letter == 'H' && !strcmp(s.mark, G_HIGH));
        if (gi >= o.n) {
            CHECKV(&vt, 0);
            break;
        }
        const struct ent *g = &o.v[gi++];
        CHECKV(&vt, s.count == g->records && name_is(s.rest, g->name));
        char span[64];
        snprintf(span, sizeof span, "%d step%s", g->steps, g->steps == 1 ? "" : "s");
        CHECKV(&vt, strstr(s.rest, span) != NULL);
        snprintf(span, sizeof span, "%d rank%s", g->ranks, g->ranks == 1 ? "" : "s");
        CHECKV(&vt, strstr(s.rest, span) != NULL);
        checked++;
    }
    CHECKV(&vt, checked >= 2 && gi == o.n);   /* G shows the last rows: every group to the end */
    /* the selected row is the last group; the status line says what it is */
    const struct ent *last = &o.v[o.n - 1];
    snprintf(want, sizeof want, "high numeric jump (heuristic, no NaN/Inf) %s: %zu record", last->name, last->records);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), want) ||
                (strlen(want) > 80 && vt_row_has(&vt, vt_status_row(&vt), "high numeric jump (heuristic, no NaN/Inf)")));
    /* 2 hides the high level: the groups go, the criticals stay first */
    vt_send(&vt, "2");
    WAIT_CHECK(&vt, scan_list(&vt).first_group < 0 && scan_list(&vt).first_crit > 0);
    vt_send(&vt, "G");
    WAIT_CHECK(&vt, scan_list(&vt).first_group < 0 && scan_list(&vt).jump_heading < 0);
    pt_vt_quit(&vt);
    free(o.v);
}

/* A healthy run: only the numeric-jump groups (the sums of every step and
 * rank), and F says there is no NaN or Inf. */
static void test_clean(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct ovf o;
    CHECK_INT(headless_rc(dir_clean, &o, 0), 0);   /* exit 0: the gate passes */
    int sums = 0;
    for (size_t i = 0; i < o.n; i++) {
        CHECK(o.v[i].group && o.v[i].level == L_HIGH);
        sums += strstr(o.v[i].name, ".sum.") != NULL && o.v[i].steps == 3 && o.v[i].ranks == 2;
    }
    CHECK(sums >= 2);   /* Tensor.sum and Torch.sum on all 3 steps and 2 ranks */
    struct vt vt;
    if (open_pane(&vt, 80, 24, dir_clean, NULL) != 0) {
        CHECK(0);
        free(o.v);
        return;
    }
    struct filt f = { ALL_LEVELS, -1, -1 };
    WAIT_CHECK(&vt, list_matches(&vt, &o, &f, false) && scan_list(&vt).jump_heading > 0);
    CHECK(list_matches(&vt, &o, &f, true));
    struct seen z = scan_list(&vt);
    CHECKV(&vt, z.first_crit < 0 && z.first_other < 0 && z.first_group == z.jump_heading + 1);
    CHECKV(&vt, header_says(&vt, &o, ALL_LEVELS, "all", "all"));
    vt_send(&vt, "F");
    WAIT_CHECK(&vt, vt_row_has(&vt, msg_row(&vt), "no NaN or Inf in this data"));
    pt_vt_quit(&vt);
    free(o.v);
}

/* The pane goes to the origin when it comes, whatever an earlier dataset
 * showed: F3 while only the clean steps 0-2 are there (numeric-jump records
 * alone), then, in follow mode, step 3 arrives with the NaN born on rank 2.
 * The cursor, never moved by the user, is on the first row, the origin,
 * with the criticals on screen (a place is kept only when the user chose
 * it; the progressive load's early rounds swap the same way). */
static void test_opens_on_origin(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!py || !py[0] || !s) SKIP("no python or shared tools");
    const char *tmp = pt_tmpdir("vt_overflow_origin");
    char gen[1200], run[1200], cmd[4096];
    snprintf(gen, sizeof gen, "%s/gen", tmp);
    snprintf(run, sizeof run, "%s/run", tmp);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 4 --ranks 4 --layers 2 --micro-batches 2 --tp 2 "
             "--hidden 64 --heads 4 --ffn 128 --seq 16 --vocab 256 --seed 1 --nan 3:2:layers.1.mlp --quiet && "
             "mkdir -p '%s' && cp -r '%s/step0' '%s/step1' '%s/step2' '%s/'",
             py, s, gen, run, gen, gen, gen, run);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    const char *args[] = { "--follow", run, NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 30, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F3>");
    WAIT_CHECK(&vt, vt_has(&vt, "numeric jump: msProbe heuristic") && header_row(&vt) >= 0 &&
                        strstr(vt_row_text(&vt, header_row(&vt)), "critical 0"));
    snprintf(cmd, sizeof cmd, "cp -r '%s/step3' '%s/.step3' && mv '%s/.step3' '%s/step3'", gen, run, run, run);
    CHECK_INT(system(cmd), 0);
    WAIT_CHECK(&vt, header_row(&vt) >= 0 && !strstr(vt_row_text(&vt, header_row(&vt)), "critical 0") &&
                        vt_has(&vt, "origin, where the NaN/Inf was born"));
    int t = titles_row(&vt);
    CHECKV(&vt, t > 0 && vt_row_has(&vt, t + 1, "step 3: origin, where the NaN/Inf was born"));
    /* the cursor: the first row, a critical of rank 2 */
    struct shown r;
    int st = -1;
    CHECKV(&vt, t > 0 && parse_row(vt_row_text(&vt, t + 2), &st, &r) == 1 && r.focus && r.letter == 'C' &&
                    r.rank == 2 && !r.group);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "critical step 3"));
    vt_send(&vt, "q");
    vt_close(&vt);
}

int main(void) {
    RUN(test_order);
    RUN(test_clean);
    RUN(test_dump);
    RUN(test_enter_graph);
    RUN(test_no_color);
    RUN(test_demo);
    RUN(test_shot);
    RUN(test_opens_on_origin);
    PT_DONE();
}
