/* test_vt_follow: data that grows while probetop shows it (probetop(1),
 * FOLLOW MODE; and progressive folders: the first steps on screen while the
 * rest loads).
 *
 * test_monitor, test_monitor_v2, test_dump: gen_dump.py writes a whole run
 * of 5 steps; probetop --follow starts on a copy holding steps 0 and 1, the
 * user moves the cursor, then the test writes step 2, and step 3 with one
 * file in two halves (a CSV row / a dump.json cut in the middle): the steps
 * appear, the cursor stays on its cell (the status line's cell text is
 * unchanged), the half-written file is "being written", never an error,
 * and reads whole once the rest is there.  Then step 4, the same way, with
 * the overflow pane (F3) shown: its cursor stays on its entry.
 *
 * test_starts_empty: --follow on an empty folder waits for the data.
 *
 * test_keys_while_loading: a dump root of 400 steps (hard links of one
 * generated step) loads progressively: the first step's heat map is on
 * screen while the rest loads ("loading N/M files" in the status line),
 * and the cursor keys move the cursor then.
 *
 * Every wait is for a state on screen; nothing depends on timing. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <dirent.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

/* Runs gen_dump.py with args into dir; 0, or -1 (skip) without it. */
static int gen(const char *dir, const char *args) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    char cmd[8192];
    if (!py || !py[0] || !s) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s --quiet >/dev/null 2>&1", py, s, dir, args);
    return system(cmd) == 0 ? 0 : -1;
}

/* The files of a generated tree (relative paths), sorted. */
struct files {
    char **v;
    size_t n;
};

static void list_rec(const char *root, const char *rel, struct files *f) {
    char p[4096];
    snprintf(p, sizeof p, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(p);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char r[4096], q[8192];
        snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(q, sizeof q, "%s/%s", root, r);
        struct stat st;
        if (stat(q, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) list_rec(root, r, f);
        else {
            f->v = realloc(f->v, (f->n + 1) * sizeof *f->v);
            f->v[f->n++] = strdup(r);
        }
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void files_free(struct files *f) {
    for (size_t i = 0; i < f->n; i++) free(f->v[i]);
    free(f->v);
}

/* Which step a file of the tree belongs to, by the kind's layout. */
enum kind { MON1, MON2, DUMP };

static int step_of(enum kind k, const char *rel) {
    const char *b = strrchr(rel, '/');
    b = b ? b + 1 : rel;
    int s = -1, t = -1;
    if (k == DUMP) return sscanf(rel, "step%d/", &s) == 1 ? s : -1;
    const char *us = strrchr(b, '_');
    if (!us) return -1;
    if (k == MON2 && sscanf(us, "_step%d-%d.csv", &s, &t) == 2) return s;
    if (k == MON1 && sscanf(us, "_%d-%d.csv", &s, &t) == 2) return s;
    return -1;
}

static void mkdirs_for(const char *path) {
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *q = p + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            mkdir(p, 0755);
            *q = '/';
        }
}

/* Writes bytes [from, to) of src's file rel into dst's (appending when from > 0). */
static int put_part(const char *src, const char *dst, const char *rel, size_t from, size_t to) {
    char a[8192], b[8192];
    snprintf(a, sizeof a, "%s/%s", src, rel);
    snprintf(b, sizeof b, "%s/%s", dst, rel);
    char *text = pt_slurp(a);
    if (!text) return -1;
    size_t n = strlen(text);
    if (to > n) to = n;
    mkdirs_for(b);
    FILE *f = fopen(b, from ? "ab" : "wb");
    int rc = f && fwrite(text + from, 1, to - from, f) == to - from ? 0 : -1;
    if (f && fclose(f) != 0) rc = -1;
    free(text);
    return rc;
}

/* Copies step s of the full tree into the live one, all files but `half`
 * (a relative path, or NULL). */
static int put_step(enum kind k, const struct files *f, const char *full, const char *live, int s, const char *half) {
    for (size_t i = 0; i < f->n; i++)
        if (step_of(k, f->v[i]) == s && (!half || strcmp(f->v[i], half)) && put_part(full, live, f->v[i], 0, (size_t)-1) != 0)
            return -1;
    return 0;
}

/* The file of step s to write in two halves: the last dump.json, or the
 * last CSV of the step. */
static const char *half_file(enum kind k, const struct files *f, int s) {
    const char *pick = NULL;
    for (size_t i = 0; i < f->n; i++)
        if (step_of(k, f->v[i]) == s && (k != DUMP || strstr(f->v[i], "dump.json"))) pick = f->v[i];
    return pick;
}

/* Where to cut it: mid-row (not right after a line end), mid-file. */
static size_t cut_of(const char *full, const char *rel) {
    char a[8192];
    snprintf(a, sizeof a, "%s/%s", full, rel);
    char *t = pt_slurp(a);
    if (!t) return 0;
    size_t n = strlen(t), c = n / 2;
    while (c > 1 && (t[c - 1] == '\n' || t[c] == '\n' || t[c] == '\r')) c--;
    free(t);
    return c;
}

static int status_row(struct vt *vt) { return vt->rows - 2; }

/* The cell part of the status line: what stands before the hints and the
 * "live" note at its right. */
static void cell_text(struct vt *vt, char *buf, size_t n) {
    snprintf(buf, n, "%s", vt_row_text(vt, status_row(vt)));
    char *hints = strstr(buf, "? help");
    if (hints) *hints = '\0';
    char *live = strstr(buf, "live");
    if (live) *live = '\0';
    char *origin = strstr(buf, "  | origin");   /* the overflow pane's: searched again after new data */
    if (origin) *origin = '\0';
    size_t l = strlen(buf);
    while (l && buf[l - 1] == ' ') buf[--l] = '\0';
}

static bool row_has(struct vt *vt, int row, const char *text) { return strstr(vt_row_text(vt, row), text) != NULL; }

static bool screen_has(struct vt *vt, const char *text) { return vt_find(vt, text, NULL, NULL); }

static void grow(enum kind k, const char *gen_args, const char *name) {
    const char *tmp = pt_tmpdir(name);
    char full[2048], live[2048];
    if (!tmp) SKIP("no scratch folder");
    snprintf(full, sizeof full, "%s/full", tmp);
    snprintf(live, sizeof live, "%s/live", tmp);
    if (gen(full, gen_args) != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct files f = {0};
    list_rec(full, "", &f);
    qsort(f.v, f.n, sizeof *f.v, cmp_str);
    mkdir(live, 0755);
    CHECK(put_step(k, &f, full, live, 0, NULL) == 0);
    CHECK(put_step(k, &f, full, live, 1, NULL) == 0);

    struct vt vt;
    const char *args[] = {"--follow", "--micro-step", "false", live, NULL};
    if (vt_spawn_app(&vt, 220, 30, args, NULL) != 0) {
        CHECK(0);
        files_free(&f);
        return;
    }
    VT_WAIT(&vt, screen_has(&vt, "Heat map") && row_has(&vt, status_row(&vt), "live"));
    /* the cursor on step 1, rank 1, third row */
    vt_send(&vt, ":step 1<Enter>");
    VT_WAIT(&vt, row_has(&vt, 0, "step 1"));
    vt_send(&vt, "jj");
    VT_WAIT(&vt, !row_has(&vt, status_row(&vt), "step 1  rank 0  ") || row_has(&vt, status_row(&vt), "rank 0"));
    vt_send(&vt, ":rank 1<Enter>");
    VT_WAIT(&vt, row_has(&vt, status_row(&vt), "rank 1"));
    /* a line in the chart: it stays over the swaps */
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, !screen_has(&vt, "adds its trend here"));
    vt_send(&vt, "<C-l>");   /* a key clears "line 1 added" */
    VT_WAIT(&vt, !screen_has(&vt, "line 1 added"));
    char before[2048], name_before[2048];
    cell_text(&vt, before, sizeof before);
    snprintf(name_before, sizeof name_before, "%s", vt_row_text(&vt, status_row(&vt) + 1));
    vt_send(&vt, ":step 3<Enter>");
    VT_WAIT(&vt, screen_has(&vt, "no step 3"));
    vt_send(&vt, "<C-l>");   /* a key clears the message */
    VT_WAIT(&vt, !screen_has(&vt, "no step 3"));

    /* step 2, whole */
    CHECK(put_step(k, &f, full, live, 2, NULL) == 0);
    VT_WAIT(&vt, row_has(&vt, status_row(&vt), "live, grew"));
    char after[2048];
    cell_text(&vt, after, sizeof after);
    CHECK_STR(after, before);

    /* step 3, one file in two halves */
    const char *half = half_file(k, &f, 3);
    CHECK(half != NULL);
    if (half) {
        size_t cut = cut_of(full, half);
        CHECK(put_step(k, &f, full, live, 3, half) == 0);
        CHECK(put_part(full, live, half, 0, cut) == 0);
        VT_WAIT(&vt, row_has(&vt, status_row(&vt), "1 file being written"));
        CHECKV(&vt, !screen_has(&vt, "skipped") && !screen_has(&vt, "failed") && !screen_has(&vt, "error"));
        cell_text(&vt, after, sizeof after);
        CHECK_STR(after, before);
        CHECK(put_part(full, live, half, cut, (size_t)-1) == 0);
        VT_WAIT(&vt, !row_has(&vt, status_row(&vt), "being written") && row_has(&vt, status_row(&vt), "live, grew"));
        CHECKV(&vt, !screen_has(&vt, "skipped") && !screen_has(&vt, "failed") && !screen_has(&vt, "error"));
        cell_text(&vt, after, sizeof after);
        CHECK_STR(after, before);
        CHECK_STR(vt_row_text(&vt, status_row(&vt) + 1), name_before);
        CHECKV(&vt, !screen_has(&vt, "adds its trend here"));   /* the line is still there */
    }
    /* the new steps are there to go to */
    vt_send(&vt, ":step 3<Enter>");
    VT_WAIT(&vt, row_has(&vt, 0, "step 3"));
    CHECKV(&vt, !screen_has(&vt, "no step 3"));
    vt_send(&vt, "[");
    VT_WAIT(&vt, row_has(&vt, 0, "step 2"));

    /* the overflow pane keeps its entry under the cursor while step 4 comes */
    const char *half4 = half_file(k, &f, 4);
    vt_send(&vt, "<F3>");
    VT_WAIT(&vt, screen_has(&vt, "pos name"));
    vt_send(&vt, "jjj");
    VT_WAIT(&vt, vt_wait_idle(&vt, 100) == 0);
    char ovf_before[2048], ovf_after[2048];
    cell_text(&vt, ovf_before, sizeof ovf_before);
    CHECK(half4 != NULL);
    if (half4) {
        CHECK(put_step(k, &f, full, live, 4, half4) == 0);
        CHECK(put_part(full, live, half4, 0, cut_of(full, half4)) == 0);
        VT_WAIT(&vt, row_has(&vt, status_row(&vt), "1 file being written"));
        cell_text(&vt, ovf_after, sizeof ovf_after);
        CHECK_STR(ovf_after, ovf_before);
        CHECK(put_part(full, live, half4, cut_of(full, half4), (size_t)-1) == 0);
        VT_WAIT(&vt, !row_has(&vt, status_row(&vt), "being written"));
        cell_text(&vt, ovf_after, sizeof ovf_after);
        CHECK_STR(ovf_after, ovf_before);

        /* step 5 comes while the heat map is shown: the overflow list is
         * made again when its pane is shown, the cursor on its entry */
        vt_send(&vt, "<F2>");
        VT_WAIT(&vt, screen_has(&vt, "Heat map"));
        CHECK(put_step(k, &f, full, live, 5, NULL) == 0);
        int seen5 = 0;
        for (double t0 = vt_now(); !seen5 && vt_now() - t0 < 10;) {   /* :step 5 works once step 5 is in */
            vt_send(&vt, ":step 5<Enter>");
            vt_wait_idle(&vt, 300);
            seen5 = row_has(&vt, 0, "step 5");
        }
        CHECKV(&vt, seen5);
        vt_send(&vt, "<F3>");
        VT_WAIT(&vt, screen_has(&vt, "pos name"));
        VT_WAIT(&vt, vt_wait_idle(&vt, 100) == 0);
        cell_text(&vt, ovf_after, sizeof ovf_after);
        CHECK_STR(ovf_after, ovf_before);
    }
    pt_vt_quit(&vt);
    files_free(&f);
}

static void test_monitor(void) { grow(MON1, "--monitor --steps 6 --ranks 2 --layers 2", "follow_monitor"); }
static void test_monitor_v2(void) { grow(MON2, "--monitor-v2 --steps 6 --ranks 2 --layers 2 --nan 1:0:layers.1.mlp", "follow_monitor_v2"); }
static void test_dump(void) { grow(DUMP, "--steps 6 --ranks 2 --layers 2 --nan 1:0:layers.1.mlp", "follow_dump"); }

/* --follow on a folder training has not written into yet: it waits for
 * the data (no exit, no error but the wait), then shows it. */
static void test_starts_empty(void) {
    const char *tmp = pt_tmpdir("follow_empty");
    char full[2048], live[2048];
    if (!tmp) SKIP("no scratch folder");
    snprintf(full, sizeof full, "%s/full", tmp);
    snprintf(live, sizeof live, "%s/live", tmp);
    if (gen(full, "--monitor-v2 --steps 2 --ranks 2 --layers 2") != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    struct files f = {0};
    list_rec(full, "", &f);
    qsort(f.v, f.n, sizeof *f.v, cmp_str);
    mkdir(live, 0755);
    struct vt vt;
    const char *args[] = {"--follow", live, NULL};
    if (vt_spawn_app(&vt, 160, 30, args, NULL) != 0) {
        CHECK(0);
        files_free(&f);
        return;
    }
    VT_WAIT(&vt, screen_has(&vt, "waiting for data"));
    CHECK(put_step(MON2, &f, full, live, 0, NULL) == 0);
    VT_WAIT(&vt, screen_has(&vt, "Heat map") && row_has(&vt, status_row(&vt), "live"));
    CHECK(put_step(MON2, &f, full, live, 1, NULL) == 0);
    VT_WAIT(&vt, row_has(&vt, status_row(&vt), "live, grew"));
    pt_vt_quit(&vt);
    files_free(&f);
}

/* A run of 400 steps, made of hard links to one generated step: the first
 * step shows at once, the rest loads under the progress line, and j moves
 * the cursor meanwhile. */
static void test_keys_while_loading(void) {
    const char *tmp = pt_tmpdir("follow_loading");
    char dir[2048], cmd[8192];
    if (!tmp) SKIP("no scratch folder");
    snprintf(dir, sizeof dir, "%s/run", tmp);
    if (gen(dir, "--steps 1 --ranks 8 --layers 2") != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    snprintf(cmd, sizeof cmd, "cd '%s' && for i in $(seq 1 399); do cp -al step0 step$i || exit 1; done", dir);
    CHECK(system(cmd) == 0);
    struct vt vt;
    const char *args[] = {"--threads", "1", dir, NULL};
    if (vt_spawn_app(&vt, 120, 30, args, NULL) != 0) { CHECK(0); return; }
    VT_WAIT(&vt, screen_has(&vt, "Heat map") && row_has(&vt, status_row(&vt), "loading"));
    char before[2048];
    snprintf(before, sizeof before, "%s", vt_row_text(&vt, status_row(&vt) + 1));   /* the target's name */
    vt_send(&vt, "j");
    /* the cursor moved while the progress is still said */
    VT_WAIT(&vt, strcmp(vt_row_text(&vt, status_row(&vt) + 1), before) != 0);
    CHECKV(&vt, row_has(&vt, status_row(&vt), "loading"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_monitor);
    RUN(test_monitor_v2);
    RUN(test_dump);
    RUN(test_starts_empty);
    RUN(test_keys_while_loading);
    PT_DONE();
}
