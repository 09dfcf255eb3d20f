/* trace_kernels_csv: the per-kernel table of `probetop trace --kernels`
 * (see trace_kernels_csv.h). */
#include "src/cmd/trace_kernels_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int trace_kernels_csv_open(struct trace_kernels_csv *k, const char *out, struct pt_error *err) {
    memset(k, 0, sizeof *k);
    k->out = out;
    k->fd = -1;
    size_t n = strlen(out) + 16;
    if (!(k->tmp = malloc(n))) return pt_errorf(err, "out of memory");
    const char *slash = strrchr(out, '/');
    size_t dl = slash ? (size_t)(slash - out) + 1 : 0;
    snprintf(k->tmp, n, "%.*s.%s.XXXXXX", (int)dl, out, out + dl);
    if ((k->fd = mkstemp(k->tmp)) < 0 || !(k->f = fdopen(k->fd, "w"))) {
        int e = errno;
        if (k->fd >= 0) { close(k->fd); unlink(k->tmp); }
        free(k->tmp);
        k->tmp = NULL;
        return pt_errorf(err, "%s: cannot write: %s", out, strerror(e));
    }
    mode_t um = umask(0);   /* a table for others to read: the mode a new file gets, not mkstemp's 0600 */
    umask(um);
    if (fchmod(k->fd, 0666 & ~um)) {}
    fputs("rank,step,micro,stream,start_us,dur_us,category,phase,name\n", k->f);
    return 0;
}

/* A name as a CSV field: quoted when it holds a comma, quote or line end. */
static void field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"') putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

/* ns as us with three decimals, exactly (no double). */
static void us(FILE *f, int64_t ns) {
    if (ns < 0) {
        putc('-', f);
        ns = -ns;
    }
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

int trace_kernels_csv_row(void *ctx, const struct trace_kernel_row *row, struct pt_error *err) {
    struct trace_kernels_csv *k = ctx;
    const struct trace_seg *g = row->seg;
    fprintf(k->f, "%d,", row->rank);
    if (row->has_step) fprintf(k->f, "%d", row->step);
    putc(',', k->f);
    if (row->micro >= 0) fprintf(k->f, "%d", row->micro);
    fprintf(k->f, ",%u,", (unsigned)g->stream);
    us(k->f, g->start_ns);
    putc(',', k->f);
    us(k->f, g->dur_ns);
    fprintf(k->f, ",%s,%s,", trace_cat_name(g->cat), trace_phase_name(g->phase));
    field(k->f, row->name);
    putc('\n', k->f);
    k->rows++;
    if ((k->rows & 0xffff) == 0 && ferror(k->f)) return pt_errorf(err, "%s: cannot write: %s", k->tmp, strerror(errno));
    return 0;
}

int trace_kernels_csv_close(struct trace_kernels_csv *k, int ok, struct pt_error *err) {
    int rc = 0;
    if (!k->f) return ok ? pt_errorf(err, "%s: not written", k->out) : 0;
    int bad = ferror(k->f) | (fflush(k->f) != 0) | (fsync(k->fd) != 0);
    bad |= fclose(k->f) != 0;
    k->f = NULL;
    if (ok && bad) rc = pt_errorf(err, "%s: cannot write: %s", k->tmp, strerror(errno));
    else if (ok && rename(k->tmp, k->out) != 0) rc = pt_errorf(err, "%s: cannot write: %s", k->out, strerror(errno));
    if (!ok || rc) unlink(k->tmp);
    free(k->tmp);
    k->tmp = NULL;
    return rc;
}
