/* trace_shard: the shards of `probetop trace` and their merge (see
 * trace_shard.h).  The shard file is src/io/trace/shard_json.c's, read
 * back by the shard reader (src/io/trace/read_shard.c), which joins the
 * shards' runs (model/trace/tshard.c): the merge is that reader's run,
 * printed as `trace` prints any run, or written as one shard file. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/util/util.h"
#include "src/cmd/cmd.h"
#include "src/cmd/trace_shard.h"
#include "src/io/common/json.h"
#include "src/io/trace/read_shard.h"
#include "src/io/trace/shard_json.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_trace_name(const char *n) {
    return n[0] != '.' && (util_ends_with(n, ".json") || util_ends_with(n, ".json.gz"));
}

int trace_shard_inputs(const char *path, int k, int n, const char *outdir, char *indir, size_t cap, size_t *nfiles,
                       size_t *total, char hash[17]) {
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "probetop trace: --shard: %s: %s (a folder of trace files, one per rank)\n", CMD_ESC(path), strerror(errno));
        return -1;
    }
    char **v = NULL;
    size_t m = 0, vc = 0;
    struct dirent *e;
    int bad = 0;
    while (!bad && (e = readdir(d))) {
        if (!is_trace_name(e->d_name)) continue;
        if (m == vc) {
            vc = vc ? 2 * vc : 64;
            char **nv = realloc(v, vc * sizeof *v);
            if (!nv) { bad = 1; break; }
            v = nv;
        }
        if (!(v[m] = strdup(e->d_name))) bad = 1;
        else m++;
    }
    closedir(d);
    if (!bad && m > 1) qsort(v, m, sizeof *v, cmp_str);
    if (!bad) shard_json_hash(v, m, hash);   /* every task lists the same folder: one hash a run */
    size_t lo = (size_t)((unsigned long long)m * (unsigned)(k - 1) / (unsigned)n);
    size_t hi = (size_t)((unsigned long long)m * (unsigned)k / (unsigned)n);
    char real[PATH_MAX];
    if (!bad && mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "probetop trace: -o %s: %s\n", CMD_ESC(outdir), strerror(errno));
        bad = 2;
    }
    if (!bad && !realpath(path, real)) bad = 1;
    snprintf(indir, cap, "%s/.trace.shard-%d-of-%d.in.%ld", outdir, k, n, (long)getpid());
    if (!bad && mkdir(indir, 0777) != 0) {
        fprintf(stderr, "probetop trace: %s: %s\n", CMD_ESC(indir), strerror(errno));
        bad = 2;
    }
    for (size_t i = lo; !bad && i < hi; i++) {
        char from[PATH_MAX + 256], to[PATH_MAX + 256];
        snprintf(from, sizeof from, "%s/%s", real, v[i]);
        snprintf(to, sizeof to, "%s/%s", indir, v[i]);
        if (symlink(from, to) != 0) {
            fprintf(stderr, "probetop trace: %s: %s\n", CMD_ESC(to), strerror(errno));
            bad = 2;
        }
    }
    for (size_t i = 0; i < m; i++) free(v[i]);
    free(v);
    if (bad == 1) fprintf(stderr, "probetop trace: --shard: %s: %s\n", CMD_ESC(path), strerror(errno ? errno : ENOMEM));
    if (bad) {
        trace_shard_inputs_free(indir);
        return -1;
    }
    *nfiles = hi - lo;
    *total = m;
    return 0;
}

void trace_shard_inputs_free(const char *indir) {
    DIR *d = opendir(indir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", indir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(indir);
}

int trace_shard_files(struct trace_run *run, const char *indir, const char *src) {
    size_t n = strlen(indir);
    for (int i = 0; i < run->nranks; i++) {
        char *f = run->ranks[i].file;
        if (!f || strncmp(f, indir, n) || f[n] != '/') continue;
        size_t len = strlen(src) + strlen(f + n) + 1;
        char *g = malloc(len);
        if (!g) return -1;
        snprintf(g, len, "%s%s", src, f + n);
        free(f);
        run->ranks[i].file = g;
    }
    return 0;
}

void trace_shard_name(const char *outdir, int k, int n, char *out, size_t cap) {
    snprintf(out, cap, "%s/trace.shard-%d-of-%d.json", outdir, k, n);
}

/* ---- writing a shard, and the merge ---- */

int trace_shard_write(const char *name, const struct dataset *ds, const struct shard_json_info *info) {
    char tmp[4096 + 96];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", name, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int bad = !f || shard_json_write(f, ds->trace, info, ds->warnings, ds->nwarnings) != 0;
    if (f && fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, name) != 0) {
        fprintf(stderr, "probetop trace: %s: %s\n", CMD_ESC(name), strerror(errno ? errno : EIO));
        if (f) unlink(tmp);
        return -1;
    }
    fprintf(stderr, "probetop trace: wrote %s: %d ranks\n", CMD_ESC(name), ds->trace->nranks);
    return 0;
}

int trace_shard_merge(char *const *paths, int n, const char *out, struct dataset **res) {
    struct dataset *ds = calloc(1, sizeof *ds);
    *res = NULL;
    struct pt_error err;
    if (!ds || !(ds->path = strdup(paths[0]))) {
        fprintf(stderr, "probetop trace: --merge: out of memory\n");
        free(ds);
        return -1;
    }
    int rc = read_shard_paths(paths, n, NULL, ds, &err);
    for (size_t i = 0; i < ds->nwarnings; i++) fprintf(stderr, "probetop trace: --merge: warning: %s\n", CMD_ESC(ds->warnings[i]));
    if (rc) fprintf(stderr, "probetop trace: --merge: %s\n", CMD_ESC(err.msg));
    if (rc == 0 && out) {   /* one shard file: 1 of 1 */
        struct shard_json_info info = {.k = 1, .n = 1};
        rc = trace_shard_write(out, ds, &info);
    }
    if (rc || out) dataset_free(ds);
    else *res = ds;
    return rc;
}
