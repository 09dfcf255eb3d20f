/* cmd_trace_ascend: Ascend step time tables in `probetop trace`
 * (src/cmd/cmd_trace_ascend.h; probetop(1), probetop trace). */
#include "src/cmd/cmd_trace_ascend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/cube/names.h"
#include "src/cmd/cmd.h"
#include "src/io/common/json.h"
#include "src/io/formats.h"
#include "src/io/load.h"

/* The targets of the step tables (read_steptrace.c), in print order. */
enum { AS_COMPUTE, AS_EXPOSED, AS_OVERLAPPED, AS_COMM, AS_IDLE, AS_STAGE, AS_BUBBLE, AS_EXCL, AS_PREP, AS_N };
static const char *const as_target[AS_N] = {"compute", "exposed_communication", "overlapped", "communication", "idle",
                                            "stage", "bubble", "communication_excl_receive", "preparing"};

int cmd_trace_ascend_is(const char *path) {
    const struct formats_row *f = formats_detect(path);
    return f && (f == formats_find("ascend_step") || f == formats_find("ascend_cluster"));
}

struct as_view {
    const struct cube *c;
    int m, us;
    uint32_t lt[AS_N];   /* UINT32_MAX: not in the cube */
};

/* The value of target k at (step index, rank index); NAN when missing. */
static double at(const struct as_view *v, int k, int si, int ri) {
    if (v->lt[k] == UINT32_MAX) return NAN;
    float x = cube_get(v->c, v->m, v->us, v->lt[k], si, ri);
    return cube_is_missing(x) || cube_is_notensor(x) ? NAN : (double)x;
}

/* A (step, rank) has a row when its computing time is there. */
static int has_row(const struct as_view *v, int si, int ri) { return !isnan(at(v, AS_COMPUTE, si, ri)); }

/* Sums over the steps of rank index ri: sum[k] (NAN when some row lacks k), the rows. */
static int rank_sums(const struct as_view *v, int ri, double *sum) {
    int n = 0;
    for (int k = 0; k < AS_N; k++) sum[k] = 0;
    for (int si = 0; si < v->c->nsteps; si++) {
        if (!has_row(v, si, ri)) continue;
        n++;
        for (int k = 0; k < AS_N; k++) sum[k] += at(v, k, si, ri);   /* a NAN stays */
    }
    return n;
}

/* The step time: computing + communication not overlapped + free. */
static double step_time(const double *x) { return x[AS_COMPUTE] + x[AS_EXPOSED] + x[AS_IDLE]; }

/* A value: text in a column of width (decimals), csv and json with three; missing: -, empty, null. */
static void put_num(int format, double x, int width, int decimals) {
    if (!isnan(x)) printf("%*.*f", format == 0 ? width : 0, format == 0 ? decimals : 3, x);
    else if (format == 2) fputs("null", stdout);
    else if (format == 0) printf("%*s", width, "-");
}

static void row_values(int format, const double *x) {
    double tot = step_time(x);
    for (int k = 0; k < AS_N; k++) {
        if (format == 2) printf(", \"%s_us\": ", as_target[k]);
        else printf(format == 1 ? "," : " ");
        put_num(format, x[k], 12, 0);
    }
    /* the shares of the step time: computing, communication not overlapped, free, bubble */
    static const int pk[] = {AS_COMPUTE, AS_EXPOSED, AS_IDLE, AS_BUBBLE};
    for (size_t i = 0; i < sizeof pk / sizeof *pk; i++) {
        double p = tot > 0 ? 100.0 * x[pk[i]] / tot : NAN;
        if (format == 2) printf(", \"%s_pct\": ", as_target[pk[i]]);
        else printf(format == 1 ? "," : " ");
        put_num(format, p, 6, 2);
    }
}

/* The straggler of a step: the rank with the most work (computing + free:
 * the step time less the communication nothing hides, as for traces). */
struct as_strag {
    int32_t step, rank;
    double work, median;
    int nranks;
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int stragglers(const struct as_view *v, struct as_strag *out) {
    const struct cube *c = v->c;
    double *w = malloc((size_t)(c->nranks ? c->nranks : 1) * sizeof *w);
    int n = 0;
    if (!w) return -1;
    for (int si = 0; si < c->nsteps; si++) {
        int m = 0, best = -1;
        double bw = 0;
        for (int ri = 0; ri < c->nranks; ri++) {
            if (!has_row(v, si, ri)) continue;
            double x = at(v, AS_COMPUTE, si, ri) + at(v, AS_IDLE, si, ri);
            if (isnan(x)) continue;
            w[m++] = x;
            if (best < 0 || x > bw) best = ri, bw = x;
        }
        if (!m) continue;
        qsort(w, (size_t)m, sizeof *w, cmp_double);
        double med = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
        out[n++] = (struct as_strag){c->steps[si].value, c->ranks[best], bw, med, m};
    }
    free(w);
    return n;
}

static void print(const struct dataset *ds, const struct as_view *v, int format, int per_step) {
    const struct cube *c = v->c;
    struct as_strag *g = malloc((size_t)(c->nsteps ? c->nsteps : 1) * sizeof *g);
    int ng = g ? stragglers(v, g) : 0;
    double x[AS_N];
    if (format == 2) {
        printf("{\"path\": ");
        json_fput_str(stdout, ds->path);
        printf(", \"format\": \"%s\", \"ranks\": [", formats_name(ds->format));
    } else if (format == 1) {
        printf("step,rank");
        for (int k = 0; k < AS_N; k++) printf(",%s_us", as_target[k]);
        printf(",compute_pct,exposed_communication_pct,idle_pct,bubble_pct,steps\n");
    } else {
        printf("Ascend step times (%s), us: sums over the steps; shares of the step time (computing +\n"
               "communication not overlapped + free)\n", formats_name(ds->format));
        printf("step        rank   compute_us   exposed_us overlapped_us     comm_us     free_us     stage_us"
               "    bubble_us excl_recv_us preparing_us  comp%%  expo%%  free%% bubble%% steps\n");
    }
    int first = 1;
    for (int ri = 0; ri < c->nranks; ri++) {
        int n = rank_sums(v, ri, x);
        if (!n) continue;
        if (format == 2) printf("%s\n  {\"rank\": %d, \"steps\": %d", first ? "" : ",", c->ranks[ri], n);
        else if (format == 1) printf(",%d", c->ranks[ri]);
        else printf("%-11s %4d", "", c->ranks[ri]);
        first = 0;
        row_values(format, x);
        if (format == 2) printf("}");
        else printf(format == 1 ? ",%d\n" : " %5d\n", n);
    }
    if (format == 2) printf("]");
    if (per_step) {
        if (format == 2) printf(",\n \"steps\": [");
        else if (format == 0) printf("\n");
        first = 1;
        for (int si = 0; si < c->nsteps; si++)
            for (int ri = 0; ri < c->nranks; ri++) {
                if (!has_row(v, si, ri)) continue;
                for (int k = 0; k < AS_N; k++) x[k] = at(v, k, si, ri);
                if (format == 2) printf("%s\n  {\"step\": %d, \"rank\": %d", first ? "" : ",", c->steps[si].value, c->ranks[ri]);
                else if (format == 1) printf("%d,%d", c->steps[si].value, c->ranks[ri]);
                else printf("%-11d %4d", c->steps[si].value, c->ranks[ri]);
                row_values(format, x);
                printf(format == 2 ? "}" : format == 1 ? ",1\n" : "     1\n");
                first = 0;
            }
        if (format == 2) printf("]");
    }
    if (format == 2) {
        printf(",\n \"stragglers\": [");
        for (int i = 0; i < ng; i++)
            printf("%s\n  {\"step\": %d, \"rank\": %d, \"work_us\": %.3f, \"median_us\": %.3f, \"behind_us\": %.3f, "
                   "\"behind_pct\": %.4f, \"ranks\": %d}", i ? "," : "", g[i].step, g[i].rank, g[i].work, g[i].median,
                   g[i].work - g[i].median, g[i].median > 0 ? 100.0 * (g[i].work - g[i].median) / g[i].median : 0.0,
                   g[i].nranks);
        printf("],\n \"warnings\": [");
        for (size_t i = 0; i < ds->nwarnings; i++) {
            printf(i ? ", " : "");
            json_fput_str(stdout, ds->warnings[i]);
        }
        printf("]}\n");
    } else if (format == 0 && ng) {
        printf("\nstragglers (work = computing + free: the step time less the communication nothing hides)\n");
        printf("step        slowest      work_us    median_us    behind_us  behind%%  ranks\n");
        for (int i = 0; i < ng; i++)
            printf("%-11d %7d %12.0f %12.0f %12.0f %8.2f %6d\n", g[i].step, g[i].rank, g[i].work, g[i].median,
                   g[i].work - g[i].median, g[i].median > 0 ? 100.0 * (g[i].work - g[i].median) / g[i].median : 0.0,
                   g[i].nranks);
    }
    free(g);
}

int cmd_trace_ascend(const char *path, int format, int per_step, uint64_t mem) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.mem_budget = mem;
    struct dataset *ds = cmd_load(path, &lo);
    if (!ds) return EXIT_USAGE;
    struct as_view v = {.c = ds->cube, .m = -1, .us = -1};
    if (v.c) v.m = cube_metric_find(v.c, "time");
    if (v.m >= 0) v.us = cube_stat_find(v.c, v.m, "us");
    if (v.m < 0 || v.us < 0) {
        fprintf(stderr, "probetop trace: %s: no step times read\n", path);
        dataset_free(ds);
        return EXIT_USAGE;
    }
    for (int k = 0; k < AS_N; k++) {
        uint32_t t = names_find(v.c->names, as_target[k], strlen(as_target[k]), 0, 0);
        v.lt[k] = t == NAMES_NONE ? UINT32_MAX : cube_local_target(v.c, v.m, t);
    }
    print(ds, &v, format, per_step);
    dataset_free(ds);
    return EXIT_OK;
}
