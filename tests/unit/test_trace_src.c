/* trace_src (src/io/trace/trace_src.h): a plain trace file is mapped under
 * a read lease, and read instead when the lease is refused (the file is
 * open to be written: it may grow while it is read) or breaks (someone
 * opens it to write or cut it: the mapping is let go and the rest read, so
 * a file cut while it is parsed gives a message, never SIGBUS).  Whether
 * mapped or read, a trace gives the same figures (probetop-formats(5),
 * PROFILER TRACES: Memory). */
#include "pt_test.h"
#include "pt_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_src.h"

/* A file of n bytes 'a'..'z' over and over at path. */
static void write_bytes(const char *path, size_t n) {
    FILE *o = fopen(path, "wb");
    CHECK(o != NULL);
    if (!o) return;
    for (size_t i = 0; i < n; i++) fputc('a' + (int)(i % 26), o);
    fclose(o);
}

/* Mapped while nobody writes the file; a writer's open breaks the lease
 * (it waits, or fails at once with O_NONBLOCK); then let go, the file cut
 * to a third is read on from where the mapping stopped. */
static void mapped_then_broken(void) {
    const char *d = pt_tmpdir("src_lease");
    char p[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(p, sizeof p, "%s/t.json", d);
    size_t n = 3 * 65536 + 5;
    write_bytes(p, n);
    struct trace_src s;
    struct pt_error err;
    CHECK_INT(trace_src_open(&s, p, &err), 0);
    if (!s.map) { trace_src_close(&s); SKIP("no read lease here (file system, owner)"); }
    CHECK(trace_src_held(&s));
    trace_src_window(&s, 0, 65536);
    CHECK(s.map[0] == 'a' && s.map[65535] == 'a' + 65535 % 26);
    trace_src_window(&s, 70000, 2 * 65536);   /* the first pages given back */
    CHECK(s.map[70000] == 'a' + 70000 % 26);
    CHECK(s.map[n] == '\0');   /* zeros after the text */
    CHECK_INT((long long)s.raw, 2 * 65536);
    int w = open(p, O_WRONLY | O_NONBLOCK);   /* a writer: refused while the lease holds, which breaks it */
    CHECK(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    if (w >= 0) close(w);
    CHECK(!trace_src_held(&s));
    CHECK_INT(trace_src_unmap(&s, 2 * 65536 - 10, p, &err), 0);
    CHECK(s.map == NULL);
    CHECK_INT(truncate(p, (off_t)(2 * 65536)), 0);   /* let go: the cut goes through */
    char buf[64];
    CHECK_INT(trace_src_read(&s, buf, sizeof buf, p, &err), 10);   /* the 10 bytes left */
    CHECK(buf[0] == 'a' + (2 * 65536 - 10) % 26);
    CHECK_INT(trace_src_read(&s, buf, sizeof buf, p, &err), 0);
    trace_src_close(&s);
}

/* A file open to be written is read, as it grows. */
static void writer_open_grows(void) {
    const char *d = pt_tmpdir("src_grow");
    char p[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(p, sizeof p, "%s/t.json", d);
    write_bytes(p, 1000);
    int w = open(p, O_WRONLY | O_APPEND);
    CHECK(w >= 0);
    struct trace_src s;
    struct pt_error err;
    CHECK_INT(trace_src_open(&s, p, &err), 0);
    CHECK(s.map == NULL);
    char buf[4096];
    CHECK_INT(trace_src_read(&s, buf, 600, p, &err), 600);
    CHECK_INT(write(w, "0123456789", 10), 10);
    CHECK_INT(trace_src_read(&s, buf, sizeof buf, p, &err), 410);
    CHECK(!memcmp(buf + 400, "0123456789", 10));
    CHECK_INT(trace_src_read(&s, buf, sizeof buf, p, &err), 0);
    trace_src_close(&s);
    close(w);
    /* an empty file is read (nothing to map) */
    write_bytes(p, 0);
    CHECK_INT(trace_src_open(&s, p, &err), 0);
    CHECK(s.map == NULL);
    CHECK_INT(trace_src_read(&s, buf, sizeof buf, p, &err), 0);
    trace_src_close(&s);
}

static void parse_file(const char *path, size_t max_value, struct trace_parse_file *f, struct trace_parse_names *nm,
                       int *rc, struct pt_error *err) {
    memset(f, 0, sizeof *f);
    memset(nm, 0, sizeof *nm);
    *rc = trace_parse(path, nm, max_value, NULL, f, err);
}

/* The same records whether the file is mapped or read (a writer holding
 * it open), with windows of 4 KiB (tokens cut at every window's end) and
 * of the usual 4 MiB. */
static void mapped_same_as_read(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("src_same");
    char p[1200];
    if (!d || gen(d, "--ranks 1 --steps 6 --micro 4 --pad-mb 1") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s/rank_0.json", d);
    static const size_t maxv[2] = {4096, TRACE_PARSE_MAX_VALUE};
    for (int k = 0; k < 2; k++) {
        struct trace_parse_file f[2];
        struct trace_parse_names nm[2];
        struct pt_error err;
        int rc[2], w = -1;
        for (int m = 0; m < 2; m++) {
            if (m == 1) w = open(p, O_WRONLY | O_APPEND);   /* no lease: read */
            parse_file(p, maxv[k], &f[m], &nm[m], &rc[m], &err);
            CHECK_INT(rc[m], 0);
        }
        if (w >= 0) close(w);
        CHECK(f[0].nkernels > 100);
        CHECK_INT(f[0].nkernels, f[1].nkernels);
        CHECK_INT(f[0].nlaunches, f[1].nlaunches);
        CHECK_INT(f[0].nsteps, f[1].nsteps);
        CHECK_INT(f[0].nannos, f[1].nannos);
        CHECK_INT(f[0].rank, f[1].rank);
        CHECK_INT((long long)f[0].bytes, (long long)f[1].bytes);
        CHECK_INT(nm[0].n, nm[1].n);
        for (size_t i = 0; i < f[0].nsteps && i < f[1].nsteps; i++) {   /* field by field: padding is no value */
            const struct trace_parse_step *a = &f[0].steps[i], *b = &f[1].steps[i];
            CHECK(a->n == b->n && a->start == b->start && a->end == b->end && a->gpu == b->gpu);
        }
        for (int m = 0; m < 2; m++) {
            if (!rc[m] && f[m].kernels) CHECK_INT(trace_spill_sort(f[m].kernels, &err), 0);
        }
        for (size_t i = 0; f[0].kernels && f[1].kernels && i < f[0].nkernels; i++) {
            const struct trace_parse_kernel *a = trace_spill_next(f[0].kernels, &err), *b = trace_spill_next(f[1].kernels, &err);
            CHECK(a && b);
            if (!a || !b) break;
            CHECK(a->start == b->start && a->dur == b->dur && a->corr == b->corr && a->stream == b->stream);
        }
        for (int m = 0; m < 2; m++) {
            trace_parse_file_free(&f[m]);
            trace_parse_names_free(&nm[m]);
        }
    }
}

struct cut_job {
    const char *path;
    int rc;
    struct pt_error err;
};

static void *parse_thread(void *arg) {
    struct cut_job *j = arg;
    struct trace_parse_file f;
    struct trace_parse_names nm;
    parse_file(j->path, 4096, &f, &nm, &j->rc, &j->err);
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    return NULL;
}

/* A file cut to nothing while it is parsed (4 KiB windows: the lease is
 * asked for again at each): the cutter's open waits for the parse to let
 * the mapping go, and the parse then ends with a message naming the file,
 * or had already finished; it never dies of SIGBUS. */
static void cut_while_parsed(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("src_cut");
    char p[1200];
    if (!d || gen(d, "--ranks 1 --pad-mb 8") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s/rank_0.json", d);
    for (int round = 0; round < 3; round++) {
        struct cut_job j = {.path = p};
        pthread_t t;
        CHECK_INT(pthread_create(&t, NULL, parse_thread, &j), 0);
        usleep(2000 * (useconds_t)round);
        int w = open(p, O_WRONLY | O_TRUNC);   /* waits while the file is mapped */
        CHECK(w >= 0);
        pthread_join(t, NULL);
        if (w >= 0) close(w);
        if (j.rc) CHECK_CONTAINS(j.err.msg, p);
        if (gen(d, "--ranks 1 --pad-mb 8") != 0) { CHECK(!"gen failed"); return; }
    }
}

int main(void) {
    RUN(mapped_then_broken);
    RUN(writer_open_grows);
    RUN(mapped_same_as_read);
    RUN(cut_while_parsed);
    PT_DONE();
}
