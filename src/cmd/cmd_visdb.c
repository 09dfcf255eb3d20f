/* cmd_visdb: `info` and `overflow` on a msProbe .vis.db (see cmd_visdb.h).
 * The database is opened through read_visdb (read-only, immutable). */
#include "src/cmd/cmd_visdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/overflow.h"
#include "src/cmd/cmd.h"
#include "src/io/common/json.h"
#include "src/io/visdb/visdb_census.h"

int cmd_visdb_is(const char *path) {
    size_t n = strlen(path);
    return n >= 7 && !strcmp(path + n - 7, ".vis.db");
}

static const char *esc(const char *s, char *buf, size_t size) { return pt_escape(s, strlen(s), buf, size); }

struct totals {
    size_t nodes[2], matched[2], ovf[4];
};

static void add_up(const struct visdb_census *c, struct totals *t) {
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < c->n; i++)
        for (int s = 0; s < 2; s++) {
            t->nodes[s] += c->graphs[i].nodes[s];
            t->matched[s] += c->graphs[i].matched[s];
            for (int l = OVF_MEDIUM; l <= OVF_CRITICAL; l++) t->ovf[l] += c->graphs[i].ovf[s][l];
        }
}

static void print_list(const int32_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%s%d", i ? ", " : "", (int)v[i]);
}

static void text_range(const char *what, const int32_t *v, size_t n) {
    printf("%-12s%zu", what, n);
    if (n) printf(" (%d..%d)", (int)v[0], (int)v[n - 1]);
    printf("\n");
}

static int open_db(const char *cmd, const char *path, struct visdb **v, struct visdb_census *c) {
    struct pt_error err;
    char e[1200];
    if (visdb_open(path, v, &err) != 0 || visdb_census(*v, c, &err) != 0) {
        if (*v) visdb_close(*v);
        *v = NULL;
        fprintf(stderr, "probetop %s: %s\n", cmd, esc(err.msg, e, sizeof e));
        return -1;
    }
    return 0;
}

int cmd_visdb_info(const char *path, int json) {
    struct visdb *v = NULL;
    struct visdb_census c;
    if (open_db("info", path, &v, &c) != 0) return EXIT_USAGE;
    struct totals t;
    add_up(&c, &t);
    if (json) {
        printf("{\"path\": ");
        json_fput_str(stdout, path);
        printf(", \"format\": \"visdb\", \"graph_type\": \"%s\", \"task\": ", v->compare ? "compare" : "build");
        if (v->task[0]) json_fput_str(stdout, v->task); else printf("null");
        printf(", \"graphs\": %zu, \"steps\": [", c.n);
        print_list(v->steps, v->nsteps);
        printf("], \"ranks\": [");
        print_list(v->ranks, v->nranks);
        printf("], \"micro_steps\": %d, \"nodes\": {\"problem\": %zu", v->micro_steps, t.nodes[0]);
        if (v->compare) printf(", \"benchmark\": %zu}, \"matched\": %zu", t.nodes[1], t.matched[0]);
        else printf("}, \"matched\": null");
        printf(", \"overflow\": ");
        if (v->overflow_check)
            printf("{\"critical\": %zu, \"high\": %zu, \"medium\": %zu}", t.ovf[OVF_CRITICAL], t.ovf[OVF_HIGH], t.ovf[OVF_MEDIUM]);
        else printf("null");
        printf("}\n");
    } else {
        char e[2048];
        printf("path        %s\n", esc(path, e, sizeof e));
        printf("format      vis.db (msProbe graph, %s%s%s)\n", v->compare ? "compare" : "build",
               v->task[0] ? ", task " : "", v->task[0] ? esc(v->task, e, sizeof e) : "");
        printf("graphs      %zu (one per step and rank)\n", c.n);
        text_range("steps", v->steps, v->nsteps);
        text_range("ranks", v->ranks, v->nranks);
        if (v->compare) {
            printf("nodes       %zu problem, %zu benchmark\n", t.nodes[0], t.nodes[1]);
            printf("matched     %zu (unmatched %zu problem / %zu benchmark)\n", t.matched[0], t.nodes[0] - t.matched[0],
                   t.nodes[1] - t.matched[1]);
        } else {
            printf("nodes       %zu\n", t.nodes[0]);
        }
        if (v->overflow_check)
            printf("overflow    %zu critical, %zu high, %zu medium\n", t.ovf[OVF_CRITICAL], t.ovf[OVF_HIGH], t.ovf[OVF_MEDIUM]);
        else
            printf("overflow    not checked (built without msProbe's overflow check, -oc)\n");
    }
    int rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_USAGE;
    if (rc != EXIT_OK) fprintf(stderr, "probetop info: cannot write the output\n");
    visdb_census_free(&c);
    visdb_close(v);
    return rc;
}

static const char *side_name(int s) { return s ? "benchmark" : "problem"; }

int cmd_visdb_overflow(const char *path, const char *fmt, int min_level, long limit, int partial_ok) {
    struct visdb *v = NULL;
    struct visdb_census c;
    if (open_db("overflow", path, &v, &c) != 0) return EXIT_USAGE;
    struct visdb_flagged *f = NULL;
    size_t n = 0;
    struct pt_error err;
    if (v->overflow_check && visdb_flagged(v, min_level, &f, &n, &err) != 0) {
        char e[1200];
        fprintf(stderr, "probetop overflow: %s\n", esc(err.msg, e, sizeof e));
        visdb_census_free(&c);
        visdb_close(v);
        return EXIT_USAGE;
    }
    size_t cnt[4] = {0};
    for (size_t i = 0; i < n; i++) cnt[f[i].level]++;
    size_t shown = limit > 0 && (size_t)limit < n ? (size_t)limit : n;
    char e[2048];
    if (!strcmp(fmt, "json")) {
        printf("{\"path\": ");
        json_fput_str(stdout, path);
        printf(", \"format\": \"visdb\", \"checked\": %s, \"partial_ok\": %s, \"counts\": ",
               v->overflow_check ? "true" : "false", partial_ok ? "true" : "false");
        if (v->overflow_check)
            printf("{\"critical\": %zu, \"high\": %zu, \"medium\": %zu}", cnt[OVF_CRITICAL], cnt[OVF_HIGH], cnt[OVF_MEDIUM]);
        else printf("null");
        printf(", \"entries\": [");
        for (size_t i = 0; i < shown; i++) {
            printf("%s{\"level\": \"%s\", \"step\": %d, \"rank\": %d, \"side\": \"%s\", \"order\": %ld, \"name\": ", i ? ", " : "",
                   ovf_level_name((enum ovf_level)f[i].level), (int)f[i].step, (int)f[i].rank, side_name(f[i].side), f[i].order);
            json_fput_str(stdout, f[i].name);
            printf("}");
        }
        printf("]}\n");
    } else if (!strcmp(fmt, "csv")) {
        printf("level,step,rank,side,order,name\n");
        for (size_t i = 0; i < shown; i++) {
            printf("%s,%d,%d,%s,%ld,\"", ovf_level_name((enum ovf_level)f[i].level), (int)f[i].step, (int)f[i].rank,
                   side_name(f[i].side), f[i].order);
            char *own;
            const char *nm = pt_unctrl(f[i].name, &own);   /* no control byte reaches a terminal */
            for (const char *p = nm ? nm : "(out of memory)"; *p; p++) {
                if (*p == '"') putchar('"');
                putchar(*p);
            }
            free(own);
            printf("\"\n");
        }
    } else {
        printf("overflow check of %s (vis.db, msProbe graph %s)\n", esc(path, e, sizeof e), v->compare ? "compare" : "build");
        if (!v->overflow_check) {
            printf("levels: not stored: the graph was built without msProbe's overflow check (-oc)\n");
        } else {
            printf("counts: critical %zu, high %zu, medium %zu\n", cnt[OVF_CRITICAL], cnt[OVF_HIGH], cnt[OVF_MEDIUM]);
            if (!n) printf("no node flagged%s%s\n", min_level > OVF_MEDIUM ? " at level " : "",
                           min_level > OVF_MEDIUM ? ovf_level_name((enum ovf_level)min_level) : "");
            else {
                printf("first occurrence: %s at step %d, rank %d, %s side\n  %s\n", ovf_level_name((enum ovf_level)f[0].level),
                       (int)f[0].step, (int)f[0].rank, side_name(f[0].side), esc(f[0].name, e, sizeof e));
                if (shown < n) printf("entries (first %zu of %zu; --limit 0 lists all):\n", shown, n);
                else printf("entries (%zu):\n", n);
                printf("  %-9s %5s %5s %-9s %s\n", "level", "step", "rank", "side", "name");
                for (size_t i = 0; i < shown; i++)
                    printf("  %-9s %5d %5d %-9s %s\n", ovf_level_name((enum ovf_level)f[i].level), (int)f[i].step,
                           (int)f[i].rank, side_name(f[i].side), esc(f[i].name, e, sizeof e));
            }
        }
    }
    int rc = n ? EXIT_FOUND : EXIT_OK;
    /* no levels stored: the gate cannot know, so it does not pass (probetop(1), EXIT STATUS) */
    if (!v->overflow_check) {
        fprintf(stderr, "probetop overflow: %s: the graph was built without msProbe's overflow check (-oc), so it "
                        "holds no overflow levels: %s\n", esc(path, e, sizeof e),
                partial_ok ? "accepted by --partial-ok" : "cannot say (exit 3; --partial-ok accepts it)");
        if (!partial_ok) rc = EXIT_INCOMPLETE;
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "probetop overflow: cannot write the output\n");
        rc = EXIT_USAGE;
    }
    visdb_flagged_free(f, n);
    visdb_census_free(&c);
    visdb_close(v);
    return rc;
}
