/* test_vt_inputs: never a byte beside the user's files.  WAL-mode
 * copies of a .trend.db and of msProbe's .vis.db files in a scratch folder,
 * and a dump folder, are listed (names, sizes, mtimes) before and after
 * `info`, `overflow`, `data2db` reading the dump, and the TUI started on each
 * and quit with q: the listings must be equal.  A failed data2db leaves no
 * output folder it created. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <dirent.h>
#include <sys/wait.h>

/* "relpath size mtime\n" for every entry under dir, sorted by name. */
static void listing(const char *dir, const char *rel, char **out, size_t *len, size_t *cap) {
    char p[2048];
    snprintf(p, sizeof p, "%s%s%s", dir, *rel ? "/" : "", rel);
    struct dirent **v;
    int n = scandir(p, &v, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = v[i]->d_name;
        if (strcmp(nm, ".") && strcmp(nm, "..")) {
            char r[2048], f[4200], line[4400];
            struct stat st;
            snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", nm);
            snprintf(f, sizeof f, "%s/%s", dir, r);
            if (lstat(f, &st) == 0) {
                int l = snprintf(line, sizeof line, "%s %lld %lld.%09ld\n", r, (long long)st.st_size,
                                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
                if (*len + (size_t)l + 1 > *cap) {
                    *cap = (*cap + (size_t)l + 1) * 2;
                    *out = realloc(*out, *cap);
                }
                memcpy(*out + *len, line, (size_t)l + 1);
                *len += (size_t)l;
                if (S_ISDIR(st.st_mode)) listing(dir, r, out, len, cap);
            }
        }
        free(v[i]);
    }
    if (n >= 0) free(v);
}

static char *snapshot(const char *dir) {
    char *s = calloc(1, 1);
    size_t len = 0, cap = 1;
    listing(dir, "", &s, &len, &cap);
    return s;
}

static int sh(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool status_drawn(struct vt *vt) {
    return vt_row_text(vt, vt_status_row(vt))[0] != '\0';
}

/* The TUI on path, until it shows its status line (a wait that fails
 * when it never does), then q: it exits 0 with the terminal restored. */
static void tui(const char *path) {
    const char *args[] = {path, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 36, args, NULL), 0);
    VT_WAIT(&vt, status_drawn(&vt) && vt_wait_idle(&vt, 300) == 0);
    pt_vt_quit(&vt);
}

#define TEN "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":%s,\"Min\":0.0," \
            "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"

static int write_rank(const char *root, int step, int rank, const char *max) {
    char d[1400], p[1500], text[1200], ten[300];
    snprintf(d, sizeof d, "%s/step%d", root, step);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step%d/rank%d", root, step, rank);
    if (mkdir(d, 0755) != 0) return -1;
    snprintf(ten, sizeof ten, TEN, max);
    snprintf(text, sizeof text,
             "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null,"
             "\"data\":{\"Module.fc.Linear.forward.0\":{\"input_args\":[%s],\"input_kwargs\":{},\"output\":[%s]}}}",
             ten, ten);
    snprintf(p, sizeof p, "%s/dump.json", d);
    if (pt_write(p, text) != 0) return -1;
    snprintf(p, sizeof p, "%s/construct.json", d);
    if (pt_write(p, "{\"Module.fc.Linear.forward.0\": null}") != 0) return -1;
    snprintf(p, sizeof p, "%s/stack.json", d);
    return pt_write(p, "{}");
}

/* Every command that reads path, then the TUI on it: the folder dir is as it was. */
static void untouched_by_all(const char *dir, const char *path, const char *out) {
    char *before = snapshot(dir), cmd[4000];
    static const char *const cmds[] = {"info", "overflow", NULL};
    for (int i = 0; cmds[i]; i++) {
        snprintf(cmd, sizeof cmd, "'%s' %s '%s' >'%s/out.txt' 2>&1", vt_bin(), cmds[i], path, out);
        sh(cmd);
        char *after = snapshot(dir);
        CHECK_STR(after, before);
        if (strcmp(after, before)) fprintf(stderr, "after `%s %s`\n", cmds[i], path);
        free(after);
    }
    tui(path);
    char *after = snapshot(dir);
    CHECK_STR(after, before);
    if (strcmp(after, before)) fprintf(stderr, "after the TUI on %s\n", path);
    free(after);
    free(before);
}

static void test_wal_inputs(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (sh("command -v sqlite3 >/dev/null 2>&1") != 0) SKIP("no sqlite3 command to make WAL copies");
    const char *t = pt_tmpdir("vt_inputs");
    char dump[1100], in[1100], out[1100], cmd[4000];
    snprintf(dump, sizeof dump, "%s/dump", t);
    snprintf(in, sizeof in, "%s/in", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(dump, 0755);
    mkdir(in, 0755);
    mkdir(out, 0755);
    CHECK_INT(write_rank(dump, 0, 0, "1.0"), 0);
    CHECK_INT(write_rank(dump, 0, 1, "Infinity"), 0);
    CHECK_INT(write_rank(dump, 1, 0, "2.0"), 0);
    CHECK_INT(write_rank(dump, 1, 1, "NaN"), 0);

    /* data2db reads the dump: not a byte changes in it */
    char *before = snapshot(dump);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' >'%s/d2db.txt' 2>&1", vt_bin(), dump, out, out);
    CHECK_INT(sh(cmd), 0);
    char *after = snapshot(dump);
    CHECK_STR(after, before);
    free(before);
    free(after);
    untouched_by_all(dump, dump, out);

    /* a WAL-mode .trend.db, and msProbe's .vis.db files (WAL-mode as msProbe writes them) */
    snprintf(cmd, sizeof cmd, "cp '%s/dump_data.trend.db' '%s/wal.trend.db' && "
                              "sqlite3 '%s/wal.trend.db' 'PRAGMA journal_mode=WAL;' >/dev/null", out, in, in);
    CHECK_INT(sh(cmd), 0);
    const char *shared = pt_shared();
    static const char *const vis[] = {"gpu_dump_step0.build.vis.db", "gpu_dump_step0_vs_step1.compare_oc.vis.db"};
    for (int i = 0; shared && i < 2; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s/fixtures/msprobe-outputs/%s' '%s/%s' && sqlite3 '%s/%s' "
                                  "'PRAGMA journal_mode=WAL;' >/dev/null", shared, vis[i], in, vis[i], in, vis[i]);
        CHECK_INT(sh(cmd), 0);
    }
    /* the header says WAL (bytes 18 and 19 are 2) */
    snprintf(cmd, sizeof cmd, "%s/wal.trend.db", in);
    FILE *f = fopen(cmd, "rb");
    unsigned char h[20] = {0};
    CHECK(f && fread(h, 1, 20, f) == 20 && h[18] == 2 && h[19] == 2);
    if (f) fclose(f);

    untouched_by_all(in, cmd, out);
    untouched_by_all(in, in, out);
    for (int i = 0; shared && i < 2; i++) {
        char p[1300];
        snprintf(p, sizeof p, "%s/%s", in, vis[i]);
        untouched_by_all(in, p, out);
    }
}

/* data2db --data EMPTY --db OUT fails and leaves no OUT (nor its parents) behind. */
static void test_failed_data2db_leaves_nothing(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("vt_inputs_empty");
    char empty[1100], cmd[4000], p[1200];
    snprintf(empty, sizeof empty, "%s/empty", t);
    mkdir(empty, 0755);
    char *before = snapshot(t);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/new/out' >/dev/null 2>&1", vt_bin(), empty, t);
    CHECK_INT(sh(cmd), 2);
    char *after = snapshot(t);
    CHECK_STR(after, before);
    free(before);
    free(after);
    /* an output folder that was already there stays, empty as it was */
    snprintf(p, sizeof p, "%s/there", t);
    mkdir(p, 0755);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' >/dev/null 2>&1", vt_bin(), empty, p);
    CHECK_INT(sh(cmd), 2);
    struct stat st;
    CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
}

/* The TUI on part of a dump (a step or rank folder) keeps the numbers of
 * its path. */
static void test_tui_path_numbers(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("vt_inputs_numbers");
    char dump[1100], p[1300];
    snprintf(dump, sizeof dump, "%s/prob", t);
    mkdir(dump, 0755);
    CHECK_INT(write_rank(dump, 3, 5, "1.0"), 0);
    CHECK_INT(write_rank(dump, 3, 6, "2.0"), 0);
    static const char *const rel[] = {"step3", "step3/rank5", "step3/rank5/dump.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dump, rel[i]);
        const char *args[] = {p, NULL};
        struct vt vt;
        CHECK_INT(vt_spawn_app(&vt, 120, 36, args, NULL), 0);
        int ok = vt_wait_text(&vt, "step 3  rank 5", 0) == 0;
        CHECK(ok);
        if (!ok) vt_dump(&vt, stderr);
        vt_send(&vt, "q");
        vt_close(&vt);
    }
}

int main(void) {
    RUN(test_wal_inputs);
    RUN(test_failed_data2db_leaves_nothing);
    RUN(test_tui_path_numbers);
    PT_DONE();
}
