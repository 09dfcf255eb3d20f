/* The load keeps the bytes of the records the origin search parses again
 * (the communication ops and the records whose flags it could not judge:
 * model/overflow/origin_cap.h), so the search reads nothing of dump.json
 * again (issue 27 point 2):
 *
 *  - test_kept: on a gen_origin.py step, every record marked reread is
 *    kept, byte for byte what the file holds there, every communication op
 *    is held light (its items, not its bytes: origin_light.h), and no
 *    other record is kept;
 *  - test_no_reread: with every byte of rank 1's dump.json then overwritten
 *    (same size, change time put back, so the capture takes the file for the
 *    one it read), graph_read_cap still gives the tree the whole read of
 *    the original gives for those records (what the pairing reads of each
 *    communication op, origin_op_view): it read nothing of the file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/overflow/origin.h"
#include "model/overflow/origin_cap.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"
#include "src/io/load.h"

static struct dataset *load(const char *path) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.origin_keep = 1;
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    return ds;
}

static const char *gen_step(const char *name) {
    static char step[1200];
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || access(py, X_OK) != 0) return NULL;
    const char *dir = pt_tmpdir(name);
    char cmd[9000];
    snprintf(step, sizeof step, "%s/step0", dir ? dir : "");
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --ranks 8 --layers 3", py, pt_tool("gen_origin.py"), step);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return NULL;
    }
    return step;
}

/* The rank folder of rank r, NULL none. */
static const struct ds_rankdir *rankdir(const struct dataset *ds, int32_t r) {
    for (size_t i = 0; i < ds->nrankdirs; i++)
        if (ds->rankdirs[i].rank == r) return &ds->rankdirs[i];
    return NULL;
}

static void test_kept(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || access(py, X_OK) != 0) SKIP("no python");
    const char *step = gen_step("kept");
    if (!step) return;
    struct dataset *ds = load(step);
    CHECK(ds && ds->nrankdirs == 8);
    size_t kept = 0, comm = 0, light = 0;
    for (size_t i = 0; ds && i < ds->nrankdirs; i++) {
        const struct origin_cap *c = ds->rankdirs[i].ocap;
        CHECK(c != NULL);
        if (!c) continue;
        char *file = pt_slurp(c->path);
        CHECK(file != NULL);
        for (size_t r = 0; file && r < c->n; r++) {
            int is_comm = origin_is_comm(origin_cap_name(c, r));
            int want = c->v[r].reread || (is_comm && !c->v[r].light);
            const char *b = origin_cap_bytes(c, r);
            comm += is_comm;
            light += c->v[r].light;
            CHECK(!c->v[r].light || (is_comm && !c->v[r].reread));
            if (want != (b != NULL)) {
                fprintf(stderr, "%s: %s kept %d\n", c->path, origin_cap_name(c, r), b != NULL);
                CHECK(!"kept exactly the records parsed again");
                continue;
            }
            if (!b) continue;
            kept++;
            /* the file's bytes there: its value, from the name's key on */
            const char *at = strstr(file, origin_cap_name(c, r));
            CHECK(at != NULL);
            if (!at) continue;
            const char *v = strchr(at + c->v[r].nlen, ':');
            while (v && (*v == ':' || *v == ' ')) v++;
            CHECK(v && memcmp(v, b, c->v[r].vlen) == 0);
            CHECK(b[0] == '{' && b[c->v[r].vlen - 1] == '}');
        }
        free(file);
    }
    fprintf(stderr, "kept %zu records, %zu communication ops, %zu of them light\n", kept, comm, light);
    CHECK(comm > 20 && light == comm);
    dataset_free(ds);
}

static void test_no_reread(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || access(py, X_OK) != 0) SKIP("no python");
    const char *step = gen_step("noreread");
    if (!step) return;
    struct dataset *ds = load(step);
    const struct ds_rankdir *d = ds ? rankdir(ds, 1) : NULL;
    CHECK(d && d->ocap);
    if (!d || !d->ocap) {
        dataset_free(ds);
        return;
    }
    /* the trees from the capture, the file intact and then overwritten */
    struct tree *before = NULL, *after = NULL, *whole = NULL;
    struct pt_error err = {{0}};
    CHECK_INT(graph_read_cap(d->dir, d->ocap, origin_is_comm, &before, &err), 0);
    CHECK_INT(graph_read(d->dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &whole, &err), 0);
    struct stat st;
    CHECK_INT(stat(d->ocap->path, &st), 0);
    size_t len = 0;
    char *junk = pt_slurp(d->ocap->path);
    if (junk) len = strlen(junk);
    CHECK(junk && len == (size_t)st.st_size);
    if (junk) {
        memset(junk, 'x', len);
        FILE *f = fopen(d->ocap->path, "wb");
        CHECK(f && fwrite(junk, 1, len, f) == len);
        if (f) fclose(f);
        struct timespec ts[2] = {st.st_atim, st.st_mtim};
        CHECK_INT(utimensat(AT_FDCWD, d->ocap->path, ts, 0), 0);
    }
    free(junk);
    CHECK_INT(graph_read_cap(d->dir, d->ocap, origin_is_comm, &after, &err), 0);
    CHECK(before && after && whole);
    if (before && after && whole) {
        CHECK(before->nrecs == whole->nrecs && after->nrecs == whole->nrecs);
        CHECK(after->nparams == before->nparams && after->nparams > 0);
        CHECK(after->nparams < whole->nparams);   /* only what the pairing reads */
        size_t same = 0, ops = 0, grouped = 0;
        for (size_t r = 0; r < whole->nrecs && r < after->nrecs; r++) {
            const char *n = tree_s(whole, whole->recs[r].name);
            CHECK_STR(tree_s(after, after->recs[r].name), n);
            if (!origin_is_comm(n)) continue;
            ops++;
            /* a communication op: what the pairing reads, as the whole read of the original */
            char *a = origin_op_view(after, r), *w = origin_op_view(whole, r);
            same += a && w && !strcmp(a, w);
            grouped += a && strstr(a, " [") != NULL;
            free(a);
            free(w);
        }
        fprintf(stderr, "rank 1: %zu communication ops, %zu as the whole read gives\n", ops, same);
        CHECK(ops >= 5);
        CHECK_INT((long)same, (long)ops);
        CHECK(grouped > 0);   /* ops with a group's ranks among them */
    }
    tree_free(before);
    tree_free(after);
    tree_free(whole);
    dataset_free(ds);
}

int main(void) {
    RUN(test_kept);
    RUN(test_no_reread);
    PT_DONE();
}
