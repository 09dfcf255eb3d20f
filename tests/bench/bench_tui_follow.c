/* bench_tui_follow: follow mode's reload (probetop(1), FOLLOW MODE), seen
 * from the terminal.
 *
 * FULL is a monitor tree (v1 or monitor_v2, e.g. from gen_dump.py
 * --monitor --steps 50 ...) or a dump (stepN/rankM/dump.json, ...).  Makes
 * a live copy of it in DIR/live without
 * its last K steps (hard links: no bytes copied), runs `probetop --follow
 * DIR/live` in a pty at 160x40 through the libvterm harness and, once the
 * whole run is on screen, writes the held-back steps one at a time, file by
 * file as a training writes them.  Prints, for each, the time from its
 * last byte written to the status line saying the data grew, and the time
 * `probetop info FULL` takes for comparison (a reload that reads the whole
 * tree again costs about that).  Asserts nothing; exit 0 unless it could
 * not run (2).
 *
 *   bench_tui_follow FULL DIR [--bin PATH] [--steps K]
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "screen/vt.h"

/* The step a file of the tree belongs to: a `step<N>` folder in its path
 * (dumps), else the first step in a CSV's name: `<metric>_<a>-<b>.csv`
 * (v1) or `<slug>_step<a>-<b>.csv` (v2); -1 for other files. */
static long step_of(const char *rel) {
    for (const char *p = rel; (p = strstr(p, "step")); p += 4)
        if ((p == rel || p[-1] == '/') && p[4] >= '0' && p[4] <= '9') {
            char *e;
            long s = strtol(p + 4, &e, 10);
            if (*e == '/') return s;
        }
    const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    const char *us = strrchr(name, '_');
    if (!us || !strstr(name, ".csv")) return -1;
    const char *p = us + 1;
    if (!strncmp(p, "step", 4)) p += 4;
    if (*p < '0' || *p > '9') return -1;
    return strtol(p, NULL, 10);
}

struct file { char *rel; long step; };
struct files { struct file *v; size_t n, cap; };

/* Every file under dir (rel: its path below the tree's root), three
 * folders deep at most. */
static void list_tree(const char *root, const char *rel, int depth, struct files *fs) {
    char p[4096];
    snprintf(p, sizeof p, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(p);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char r[4096], q[8192];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(q, sizeof q, "%s/%s", root, r);
        struct stat st;
        if (stat(q, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 3) list_tree(root, r, depth + 1, fs);
            continue;
        }
        long s = step_of(r);
        if (s < 0) continue;
        if (fs->n == fs->cap) {
            fs->cap = fs->cap ? fs->cap * 2 : 1024;
            fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
            if (!fs->v) abort();
        }
        fs->v[fs->n++] = (struct file){strdup(r), s};
    }
    closedir(d);
}

static void mkdirs_for(const char *path) {
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0755);
            *c = '/';
        }
}

/* dump.json last in a rank folder, as msProbe writes it after the rest */
static int cmp_file(const void *a, const void *b) {
    const struct file *x = a, *y = b;
    int dx = strstr(x->rel, "dump.json") != NULL, dy = strstr(y->rel, "dump.json") != NULL;
    if (dx != dy) return dx - dy;
    return strcmp(x->rel, y->rel);
}

static int copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    int rc = a && b ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, a)) > 0)
        if (fwrite(buf, 1, n, b) != n) rc = -1;
    if (a) fclose(a);
    if (b && fclose(b) != 0) rc = -1;
    return rc;
}

static void put(const char *full, const char *live, const struct file *f, int linkit) {
    char a[8192], b[8192];
    snprintf(a, sizeof a, "%s/%s", full, f->rel);
    snprintf(b, sizeof b, "%s/%s", live, f->rel);
    mkdirs_for(b);
    if (linkit && link(a, b) == 0) return;
    if (copy_file(a, b) != 0) fprintf(stderr, "bench_tui_follow: cannot write %s: %s\n", b, strerror(errno));
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *bin = getenv("PT_BIN"), *full = NULL, *dir = NULL;
    int k = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bin") && i + 1 < argc) bin = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) k = atoi(argv[++i]);
        else if (!full) full = argv[i];
        else if (!dir) dir = argv[i];
        else { fprintf(stderr, "usage: bench_tui_follow FULL DIR [--bin PATH] [--steps K]\n"); return 2; }
    }
    if (!bin || !full || !dir || k < 1) {
        fprintf(stderr, "usage: bench_tui_follow FULL DIR [--bin PATH] [--steps K] (or PT_BIN)\n");
        return 2;
    }
    struct files fs = {0};
    list_tree(full, "", 0, &fs);
    if (!fs.n) { fprintf(stderr, "bench_tui_follow: no monitor CSV or step folder under %s\n", full); return 2; }
    qsort(fs.v, fs.n, sizeof *fs.v, cmp_file);
    long last = 0;
    for (size_t i = 0; i < fs.n; i++)
        if (fs.v[i].step > last) last = fs.v[i].step;
    long first_held = last - k + 1;
    char live[4096], cmd[8192];
    snprintf(live, sizeof live, "%s/live", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", live, live);
    if (system(cmd) != 0) return 2;
    for (size_t i = 0; i < fs.n; i++)
        if (fs.v[i].step < first_held) put(full, live, &fs.v[i], 1);

    /* the reference: one whole load of the full tree */
    snprintf(cmd, sizeof cmd, "'%s' info '%s' > /dev/null", bin, full);
    double t0 = vt_now();
    int info_rc = system(cmd);
    double t_info = vt_now() - t0;

    char *args[] = {(char *)bin, "--follow", live, NULL};
    struct vt vt;
    t0 = vt_now();
    if (vt_spawn(&vt, 160, 40, args, NULL) < 0) return 2;
    vt.timeout_ms = 600000;
    double t_loaded = 0;
    while (vt_now() - t0 < 600) {
        if (vt_pump(&vt, 20) < 0) break;
        if (!strstr(vt_screen_text(&vt), "Heat map")) continue;
        vt_settle(&vt);
        const char *st = vt_row_text(&vt, vt.rows - 2);
        if (strstr(st, "live") && !strstr(st, "loading")) { t_loaded = vt_now() - t0; break; }
    }
    if (!t_loaded) { fprintf(stderr, "bench_tui_follow: the run never loaded\n"); vt_close(&vt); return 2; }
    double lat[64];
    int nlat = 0;
    char before[1024] = "";
    for (long s = first_held; s <= last && nlat < 64; s++) {
        /* "grew HH:MM:SS" must be able to change: a new second */
        double w0 = vt_now();
        while (vt_now() - w0 < 1.2) vt_pump(&vt, 50);
        snprintf(before, sizeof before, "%s", vt_row_text(&vt, vt.rows - 2));
        size_t nf = 0;
        for (size_t i = 0; i < fs.n; i++)
            if (fs.v[i].step == s) {
                put(full, live, &fs.v[i], 0);
                nf++;
            }
        double tw = vt_now();
        double seen = 0;
        while (vt_now() - tw < 120) {
            if (vt_pump(&vt, 10) < 0) break;
            const char *st = vt_row_text(&vt, vt.rows - 2);
            if (strstr(st, "grew") && strcmp(st, before)) { seen = vt_now() - tw; break; }
        }
        printf("  step %ld (%zu files written): %s", s, nf, seen ? "" : "never shown\n");
        if (seen) {
            printf("on screen %.0f ms after its last byte\n", seen * 1e3);
            lat[nlat++] = seen;
        }
    }
    /* the peak memory of the TUI, with what a reload keeps */
    long hwm = 0;
    char sp[64], line[256];
    snprintf(sp, sizeof sp, "/proc/%d/status", (int)vt.pid);
    FILE *sf = fopen(sp, "r");
    while (sf && fgets(line, sizeof line, sf))
        if (!strncmp(line, "VmHWM:", 6)) hwm = strtol(line + 6, NULL, 10);
    if (sf) fclose(sf);
    vt_send(&vt, "q");
    int st;
    vt_wait_exit(&vt, 5000, &st);
    vt_close(&vt);
    printf("probetop --follow %s (%zu files, %ld steps; 160x40 terminal)\n", full, fs.n, last + 1);
    printf("  probetop info on the whole tree      %8.0f ms%s\n", t_info * 1e3, info_rc ? " (failed)" : "");
    printf("  first whole load in the TUI          %8.0f ms\n", t_loaded * 1e3);
    if (hwm) printf("  peak memory of the TUI                %8ld MB\n", hwm / 1024);
    if (nlat) {
        qsort(lat, (size_t)nlat, sizeof *lat, cmp_d);
        printf("  new step on screen after written     %8.0f ms median, %.0f-%.0f ms (%d steps)\n",
               lat[nlat / 2] * 1e3, lat[0] * 1e3, lat[nlat - 1] * 1e3, nlat);
    }
    for (size_t i = 0; i < fs.n; i++) free(fs.v[i].rel);
    free(fs.v);
    return nlat ? 0 : 2;
}
