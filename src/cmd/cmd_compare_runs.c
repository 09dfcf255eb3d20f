/* cmd_compare_runs: `probetop compare PROBLEM BENCH` on two runs of trend
 * data (two .trend.db files, two monitor trees, v1 or v2, or one of each;
 * probetop(1), COMPARE TWO EXPERIMENTS): the runs matched and the
 * per-target difference table (model/compare/runpair.h), as text, csv or
 * json, with the first step x target where the runs part.  cmd_compare.c
 * hands its arguments here when both operands are trend data. */
#include "src/cmd/cmd_compare_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/runpair.h"
#include "model/util/util.h"
#include "src/cmd/cmd.h"
#include "src/io/common/json.h"
#include "src/io/common/mapping.h"
#include "src/io/formats.h"
#include "src/io/load.h"
#include "src/io/monitor/read_monitor_v2.h"

enum rfmt { RF_TEXT, RF_CSV, RF_JSON };

struct ropts {
    const char *paths[2], *csv, *mapping, *metric;
    enum rfmt fmt;
    int first, partial_ok;
    double threshold;
    struct load_opts lo;
};

/* The options that take a value, of either compare (their value is no operand). */
static int takes_value(const char *a) {
    static const char *const v[] = {"--csv", "--out", "--layer-mapping", "-lm", "--match-config", "--threshold",
                                    "--mapping", "--format", "--metric", "--mem"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!strcmp(a, v[i])) return 1;
    return 0;
}

/* Trend data: the reader rows the analyzer pairs too (src/session/trendpair.h). */
static int is_trend(const char *path) {
    const struct formats_row *f = formats_detect(path);
    return f && (!strcmp(f->name, "trenddb") || !strcmp(f->name, "monitor") || !strcmp(f->name, "monitor_v2"));
}

int cmd_compare_runs_wanted(int argc, char **argv) {
    const char *ops[2];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (takes_value(argv[i])) i++;
            continue;
        }
        if (n == 2) return 0;
        ops[n++] = argv[i];
    }
    return n == 2 && is_trend(ops[0]) && is_trend(ops[1]);
}

/* compare's usage for two runs, for the operand messages (cmd_operand) */
static const struct cmd_entry runs_entry = {
    .name = "compare",
    .usage = "probetop compare PROBLEM BENCH [--format text|csv|json] [--csv FILE|-] [--first] [--threshold P] "
             "[--metric NAME] [--mapping FILE] [--mem SIZE] [--partial-ok]",
};

static int parse_threshold(const char *s, double *out) {
    char *e;
    double p = strtod(s, &e);
    if (e == s || (*e && strcmp(e, "%")) || !isfinite(p) || p <= 0 || p >= 1e6) {
        fprintf(stderr, "probetop compare: --threshold wants a percentage above 0 (1 or 1%% for 1 %%), not '%s'\n",
                CMD_ESC(s));
        return -1;
    }
    *out = p / 100;
    return 0;
}

static int parse_args(int argc, char **argv, struct ropts *o) {
    memset(o, 0, sizeof *o);
    load_opts_init(&o->lo);
    o->lo.lazy = 1;   /* a .trend.db by slices within --mem, as the analyzer reads it */
    o->threshold = RUNPAIR_THRESHOLD;
    int np = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        int m = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--csv", &m, &bad)) || m) { if (v) { o->csv = v; o->fmt = RF_CSV; } continue; }
        if ((v = opt_value(argc, argv, &i, "--mapping", &m, &bad)) || m) { if (v) o->mapping = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--metric", &m, &bad)) || m) { if (v) o->metric = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--threshold", &m, &bad)) || m) {
            if (v && parse_threshold(v, &o->threshold) != 0) return EXIT_USAGE;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--mem", &m, &bad)) || m) {
            if (v && util_parse_size(v, &o->lo.mem_budget) != 0) {
                fprintf(stderr, "probetop compare: --mem wants a size such as 512M or 2G, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--format", &m, &bad)) || m) {
            if (!v) continue;
            if (!strcmp(v, "text")) o->fmt = RF_TEXT;
            else if (!strcmp(v, "csv")) o->fmt = RF_CSV;
            else if (!strcmp(v, "json")) o->fmt = RF_JSON;
            else {
                fprintf(stderr, "probetop compare: --format takes text, csv or json, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if (!strcmp(argv[i], "--first")) { o->first = 1; continue; }
        if (!strcmp(argv[i], "--partial-ok")) { o->partial_ok = 1; continue; }
        if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--layer-mapping") || !strcmp(argv[i], "-lm") ||
            !strcmp(argv[i], "--match-config") || !strcmp(argv[i], "--fuzzy-match") || !strcmp(argv[i], "-fm")) {
            fprintf(stderr, "probetop compare: %s is for two dumps, not two runs of trend data\n", argv[i]);
            return EXIT_USAGE;
        }
        if (cmd_operand(&runs_entry, argv[i], o->paths, &np) != 0) return EXIT_USAGE;
    }
    if (bad) return EXIT_USAGE;
    return cmd_operands_done(&runs_entry, np);
}

/* ---- writing ---- */

/* A float as csv/json want it: %.9g (the float32 exactly), nan/inf/-inf. */
static const char *num(float v, char *buf, size_t n) {
    if (isnan(v)) snprintf(buf, n, "nan");
    else if (isinf(v)) snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else snprintf(buf, n, "%.9g", (double)v);
    return buf;
}

static void csv_str(FILE *f, const char *s) {
    char *own;
    const char *t = pt_unctrl(s, &own);
    if (!t) t = "";
    if (!strpbrk(t, ",\"\r\n")) fputs(t, f);
    else {
        fputc('"', f);
        for (const char *q = t; *q; q++) {
            if (*q == '"') fputc('"', f);
            fputc(*q, f);
        }
        fputc('"', f);
    }
    free(own);
}

struct out {
    const struct runpair *rp;
    const struct ropts *o;
    FILE *f;
};

static const char *step_of(const struct runpair *rp, int s, char *buf, size_t n) {
    return cube_step_text(rp->p, rp->pstep[s], buf, n);
}
static int rank_of(const struct runpair *rp, int r) { return (int)rp->p->ranks[rp->prank[r]]; }
static const char *stat_of(const struct runpair *rp, int m, int k) {
    const struct runpair_metric *pm = &rp->m[m];
    return rp->p->metrics[pm->p].stats[pm->pstat[k]];
}
static const char *metric_of(const struct runpair *rp, int m) { return rp->p->metrics[rp->m[m].p].name; }
static const char *side_name(enum runpair_side s) {
    return s == RUNPAIR_PROBLEM_ONLY ? "problem only" : s == RUNPAIR_BENCH_ONLY ? "benchmark only" : "both";
}

/* The first part in words (text and --first). */
static void say_first(FILE *f, const struct runpair *rp, const struct runpair_cell *c, double thr) {
    char st[40], name[1024], a[40], b[40], r[40];
    names_display(rp->names, c->target, name, sizeof name);
    fprintf(f, "first part  step %s  rank %d  %s/%s  %s: problem %s bench %s |p-b|/|b| %s (above %g%%)\n",
            step_of(rp, c->step, st, sizeof st), rank_of(rp, c->rank), CMD_ESC(metric_of(rp, c->metric)),
            CMD_ESC(stat_of(rp, c->metric, c->stat)), CMD_ESC(name), num(c->p, a, sizeof a), num(c->b, b, sizeof b),
            num(c->rel, r, sizeof r), thr * 100);
}

static void write_text(const struct out *w, const struct runpair_row *rows, size_t n, const struct runpair_cell *first,
                       int found) {
    const struct runpair *rp = w->rp;
    FILE *f = w->f;
    uint32_t pt = 0, bt = 0;
    for (int m = 0; m < rp->nmetrics; m++) { pt += rp->m[m].p_only; bt += rp->m[m].b_only; }
    fprintf(f, "problem    %s\nbenchmark  %s\n", CMD_ESC(w->o->paths[0]), CMD_ESC(w->o->paths[1]));
    fprintf(f, "matched    %d steps, %d ranks, %d metrics\n", rp->nsteps, rp->nranks, rp->nmetrics);
    fprintf(f, "one run only (problem/benchmark, not compared): steps %d/%d, ranks %d/%d, metrics %d/%d, targets %u/%u\n",
            rp->p_only_steps, rp->b_only_steps, rp->p_only_ranks, rp->b_only_ranks, rp->p_only_metrics,
            rp->b_only_metrics, pt, bt);
    if (found) say_first(f, rp, first, w->o->threshold);
    else fprintf(f, "first part  none: no shared cell above |p-b|/|b| %g%%\n", w->o->threshold * 100);
    fprintf(f, "\n%-14s %9s %7s %6s %5s %12s %6s %5s %-8s %s\n", "METRIC", "CELLS", "PARTED", "FIRST", "RANK",
            "MAX|p-b|/|b|", "STEP", "RANK", "STAT", "TARGET");
    for (size_t i = 0; i < n; i++) {
        const struct runpair_row *r = &rows[i];
        char name[1024], st[40], st2[40], v[40];
        names_display(rp->names, r->target, name, sizeof name);
        if (r->side != RUNPAIR_BOTH) {
            fprintf(f, "%-14s %9s %7s %6s %5s %12s %6s %5s %-8s %s (%s)\n", CMD_ESC(metric_of(rp, r->metric)), "-", "-",
                    "-", "-", "-", "-", "-", "-", CMD_ESC(name), side_name(r->side));
            continue;
        }
        char fr[16] = "-", mr[16] = "-";
        if (r->has_first) snprintf(fr, sizeof fr, "%d", rank_of(rp, r->first.rank));
        if (r->has_max) snprintf(mr, sizeof mr, "%d", rank_of(rp, r->max.rank));
        fprintf(f, "%-14s %9zu %7zu %6s %5s %12s %6s %5s %-8s %s\n", CMD_ESC(metric_of(rp, r->metric)), r->compared,
                r->parted, r->has_first ? step_of(rp, r->first.step, st, sizeof st) : "-", fr,
                r->has_max ? num(r->max.rel, v, sizeof v) : "-", r->has_max ? step_of(rp, r->max.step, st2, sizeof st2) : "-",
                mr, r->has_max ? CMD_ESC(stat_of(rp, r->metric, r->max.stat)) : "-", CMD_ESC(name));
    }
}

static void write_csv(const struct out *w, const struct runpair_row *rows, size_t n) {
    const struct runpair *rp = w->rp;
    FILE *f = w->f;
    fputs("metric,target,side,cells,parted,first_step,first_rank,first_stat,first_problem,first_bench,first_rel,"
          "max_rel,max_step,max_rank,max_stat,max_problem,max_bench\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct runpair_row *r = &rows[i];
        char name[1024], st[40], a[40], b[40], c[40];
        names_display(rp->names, r->target, name, sizeof name);
        csv_str(f, metric_of(rp, r->metric));
        fputc(',', f);
        csv_str(f, name);
        fprintf(f, ",%s,", side_name(r->side));
        if (r->side != RUNPAIR_BOTH) { fputs(",,,,,,,,,,,,,,\n", f); continue; }
        fprintf(f, "%zu,%zu,", r->compared, r->parted);
        if (r->has_first) {
            fprintf(f, "%s,%d,", step_of(rp, r->first.step, st, sizeof st), rank_of(rp, r->first.rank));
            csv_str(f, stat_of(rp, r->metric, r->first.stat));
            fprintf(f, ",%s,%s,%s,", num(r->first.p, a, sizeof a), num(r->first.b, b, sizeof b), num(r->first.rel, c, sizeof c));
        } else fputs(",,,,,,", f);
        if (r->has_max) {
            fprintf(f, "%s,%s,%d,", num(r->max.rel, c, sizeof c), step_of(rp, r->max.step, st, sizeof st), rank_of(rp, r->max.rank));
            csv_str(f, stat_of(rp, r->metric, r->max.stat));
            fprintf(f, ",%s,%s\n", num(r->max.p, a, sizeof a), num(r->max.b, b, sizeof b));
        } else fputs(",,,,,\n", f);
    }
}

/* A number for json: finite as a number, else the string "nan", "inf", "-inf". */
static void json_num(FILE *f, float v) {
    char b[40];
    if (isfinite(v)) fputs(num(v, b, sizeof b), f);
    else fprintf(f, "\"%s\"", num(v, b, sizeof b));
}

static void json_cell(FILE *f, const struct runpair *rp, const struct runpair_cell *c, int with_place) {
    char st[40];
    fprintf(f, "{\"step\": \"%s\", \"rank\": %d, \"stat\": ", step_of(rp, c->step, st, sizeof st), rank_of(rp, c->rank));
    json_fput_str(f, stat_of(rp, c->metric, c->stat));
    if (with_place) {
        char name[1024];
        names_display(rp->names, c->target, name, sizeof name);
        fputs(", \"metric\": ", f);
        json_fput_str(f, metric_of(rp, c->metric));
        fputs(", \"target\": ", f);
        json_fput_str(f, name);
    }
    fputs(", \"problem\": ", f);
    json_num(f, c->p);
    fputs(", \"bench\": ", f);
    json_num(f, c->b);
    fputs(", \"rel\": ", f);
    json_num(f, c->rel);
    fputc('}', f);
}

static void write_json(const struct out *w, const struct runpair_row *rows, size_t n, const struct runpair_cell *first,
                       int found) {
    const struct runpair *rp = w->rp;
    FILE *f = w->f;
    uint32_t pt = 0, bt = 0;
    for (int m = 0; m < rp->nmetrics; m++) { pt += rp->m[m].p_only; bt += rp->m[m].b_only; }
    fputs("{\"problem\": ", f);
    json_fput_str(f, w->o->paths[0]);
    fputs(", \"benchmark\": ", f);
    json_fput_str(f, w->o->paths[1]);
    fprintf(f, ", \"threshold\": %.9g, \"matched\": {\"steps\": %d, \"ranks\": %d, \"metrics\": %d}", w->o->threshold,
            rp->nsteps, rp->nranks, rp->nmetrics);
    fprintf(f, ", \"problem_only\": {\"steps\": %d, \"ranks\": %d, \"metrics\": %d, \"targets\": %u}", rp->p_only_steps,
            rp->p_only_ranks, rp->p_only_metrics, pt);
    fprintf(f, ", \"benchmark_only\": {\"steps\": %d, \"ranks\": %d, \"metrics\": %d, \"targets\": %u}", rp->b_only_steps,
            rp->b_only_ranks, rp->b_only_metrics, bt);
    fputs(", \"first_part\": ", f);
    if (found) json_cell(f, rp, first, 1);
    else fputs("null", f);
    fputs(", \"rows\": [", f);
    for (size_t i = 0; i < n; i++) {
        const struct runpair_row *r = &rows[i];
        char name[1024];
        names_display(rp->names, r->target, name, sizeof name);
        fputs(i ? ",\n  {\"metric\": " : "\n  {\"metric\": ", f);
        json_fput_str(f, metric_of(rp, r->metric));
        fputs(", \"target\": ", f);
        json_fput_str(f, name);
        fprintf(f, ", \"side\": \"%s\"", side_name(r->side));
        if (r->side == RUNPAIR_BOTH) {
            fprintf(f, ", \"cells\": %zu, \"parted\": %zu, \"first\": ", r->compared, r->parted);
            if (r->has_first) json_cell(f, rp, &r->first, 0);
            else fputs("null", f);
            fputs(", \"max\": ", f);
            if (r->has_max) json_cell(f, rp, &r->max, 0);
            else fputs("null", f);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* ---- the command ---- */

static struct dataset *load(const char *path, const struct load_opts *lo) {
    struct dataset *d = cmd_load(path, lo);
    if (d && (!d->cube || !d->cube->nmetrics)) {
        fprintf(stderr, "probetop compare: %s holds no trend data\n", CMD_ESC(path));
        dataset_free(d);
        return NULL;
    }
    return d;
}

/* Files the loads could not read (said): how many. */
static size_t unread(const struct dataset *d, const char *side) {
    size_t n = d->nskipped + d->npartial;
    for (size_t i = 0; i < d->nskipped; i++)
        fprintf(stderr, "probetop compare: %s: %s not read\n", side, CMD_ESC(d->skipped[i]));
    for (size_t i = 0; i < d->npartial; i++)
        fprintf(stderr, "probetop compare: %s: %s read but for its cut end\n", side, CMD_ESC(d->partial[i]));
    return n;
}

int cmd_compare_runs(int argc, char **argv) {
    struct ropts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != EXIT_OK) return rc;
    struct mapping map = {0};
    struct pt_error err;
    if (o.mapping && mapping_read(o.mapping, &map, &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    struct dataset *p = load(o.paths[0], &o.lo), *b = p ? load(o.paths[1], &o.lo) : NULL;
    struct runpair *rp = NULL;
    struct runpair_row *rows = NULL;
    size_t n = 0;
    FILE *f = stdout;
    rc = EXIT_USAGE;
    if (!p || !b) goto out;
    if (runpair_build(p->cube, b->cube, map.from, map.to, map.n, monitor_v2_v1_metric, &rp, &err) != 0) {
        fprintf(stderr, "probetop compare: %s and %s: %s\n", CMD_ESC(o.paths[0]), CMD_ESC(o.paths[1]), CMD_ESC(err.msg));
        goto out;
    }
    int only = -1;
    if (o.metric) {
        for (int m = 0; m < rp->nmetrics; m++)
            if (!strcmp(metric_of(rp, m), o.metric)) only = m;
        if (only < 0) {
            fprintf(stderr, "probetop compare: --metric %s: not a metric both runs have\n", CMD_ESC(o.metric));
            goto out;
        }
    }
    struct runpair_cell first;
    int found = runpair_first(rp, only, o.threshold, &first, &err);
    if (found < 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        goto out;
    }
    size_t nunread = unread(p, "problem") + unread(b, "benchmark");
    if (o.first) {
        if (found) say_first(stdout, rp, &first, o.threshold);
        else printf("the runs do not part: no shared cell above |p-b|/|b| %g%%\n", o.threshold * 100);
    } else {
        if (runpair_table(rp, o.threshold, &rows, &n, &err) != 0) {
            fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
            goto out;
        }
        if (only >= 0) {   /* the one metric's rows */
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (rows[i].metric == only) rows[k++] = rows[i];
            n = k;
        }
        if (o.csv && strcmp(o.csv, "-") && !(f = fopen(o.csv, "w"))) {
            fprintf(stderr, "probetop compare: %s: cannot write it\n", CMD_ESC(o.csv));
            f = stdout;
            goto out;
        }
        struct out w = {rp, &o, f};
        if (o.fmt == RF_CSV) write_csv(&w, rows, n);
        else if (o.fmt == RF_JSON) write_json(&w, rows, n, &first, found);
        else write_text(&w, rows, n, &first, found);
        if (f != stdout) {
            if (fclose(f) != 0) {
                f = stdout;
                fprintf(stderr, "probetop compare: %s: write failed\n", CMD_ESC(o.csv));
                goto out;
            }
            f = stdout;
            if (found) say_first(stdout, rp, &first, o.threshold);
        }
    }
    rc = found ? EXIT_FOUND : nunread && !o.partial_ok ? EXIT_INCOMPLETE : EXIT_OK;
out:
    if (f != stdout) fclose(f);
    free(rows);
    runpair_free(rp);
    dataset_free(p);
    dataset_free(b);
    mapping_free(&map);
    return rc;
}
