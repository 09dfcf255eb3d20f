/* cmd_curves: `probetop curves PROBLEM [BENCH]`, a problem run's training
 * curves against its benchmark's (or one run alone) classified as the
 * accuracy-debugging guide does, pointing to the passes of the step to dump
 * next (probetop-rules(7), TRAINING CURVES).  The classification is the
 * model's (model/curves/curves_verdict.c); this file loads the runs (any
 * path a curve reader row detects), checks a dump root with --dump (the
 * rank-folder scanner, model/util/rankdirs.h), and prints text, CSV or
 * JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/curves/curves.h"
#include "model/curves/curves_verdict.h"
#include "model/util/rankdirs.h"
#include "src/cmd/cmd.h"
#include "src/io/common/json.h"
#include "src/io/formats.h"
#include "src/io/load.h"

#define CV_LIST_MAX 1000   /* entries of a list printed (the counts stay whole) */

enum cv_format { CV_TEXT, CV_CSV, CV_JSON };

struct cv_run {
    const char *path;
    struct dataset *ds;
};

/* The rank folders of each pass's step in the dump root (-1: no root given). */
struct cv_dump {
    const char *root;
    int ranks[2];
};

/* ---- JSON ---- */

static void jnum(double v) {
    if (isfinite(v)) printf("%.17g", v);
    else printf("null");
}

static void jstep(int64_t s) {
    if (s == CURVES_NO_STEP) printf("null");
    else printf("%lld", (long long)s);
}

static const char *nonfinite_text(double v) { return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

static void json_series(const struct curves *c) {
    printf("[");
    for (size_t i = 0; i < c->nseries; i++) {
        const struct curves_series *s = &c->series[i];
        printf("%s\n   {\"name\": ", i ? "," : "");
        json_fput_str(stdout, s->name);
        printf(", \"role\": \"%s\", \"points\": %zu, \"first_step\": ", curves_role_name(s->role), s->n);
        jstep(s->n ? s->pts[0].step : CURVES_NO_STEP);
        printf(", \"last_step\": ");
        jstep(s->n ? s->pts[s->n - 1].step : CURVES_NO_STEP);
        printf("}");
    }
    printf("]");
}

static void json_run(const struct cv_run *run, const struct curves_run_report *r) {
    printf("{\"path\": ");
    json_fput_str(stdout, run->path);
    printf(", \"format\": \"%s\",\n  \"series\": ", formats_name(run->ds->format));
    json_series(run->ds->curves);
    printf(",\n  \"spikes\": [");
    for (size_t i = 0; i < r->nspikes && i < CV_LIST_MAX; i++) {
        const struct curves_spike *s = &r->spikes[i];
        printf("%s\n   {\"series\": ", i ? "," : "");
        json_fput_str(stdout, s->series);
        printf(", \"role\": \"%s\", \"step\": %lld, \"value\": ", curves_role_name(s->role), (long long)s->step);
        jnum(s->value);
        printf(", \"median\": ");
        jnum(s->median);
        printf(", \"kind\": \"%s\"}", s->back ? "spike" : "jump");
    }
    printf("],\n  \"spike_steps\": %zu,\n  \"nonfinite\": [", r->spike_steps);
    for (size_t i = 0; i < r->nnonfinite && i < CV_LIST_MAX; i++) {
        printf("%s\n   {\"series\": ", i ? "," : "");
        json_fput_str(stdout, r->nonfinite[i].series);
        printf(", \"step\": %lld, \"value\": \"%s\"}", (long long)r->nonfinite[i].step, nonfinite_text(r->nonfinite[i].value));
    }
    printf("],\n  \"nonfinite_count\": %zu, \"nonfinite_steps\": %zu,\n  \"skipped\": ", r->nnonfinite, r->nonfinite_steps);
    if (r->skipped < 0) printf("null");
    else jnum(r->skipped);
    printf(", \"nan_iterations\": ");
    if (r->nan_iters < 0) printf("null");
    else jnum(r->nan_iters);
    printf(", \"overflow_steps\": %zu,\n  \"loss_scale_drops\": [", r->overflow_steps);
    for (size_t i = 0; i < r->ndrops && i < CV_LIST_MAX; i++) {
        printf("%s{\"step\": %lld, \"from\": ", i ? ", " : "", (long long)r->drops[i].step);
        jnum(r->drops[i].from);
        printf(", \"to\": ");
        jnum(r->drops[i].to);
        printf("}");
    }
    printf("],\n  \"came_first\": ");
    if (r->came_first) printf("\"%s\"", r->came_first);
    else printf("null");
    printf(", \"first_loss_abnormal\": ");
    jstep(r->first_loss_bad);
    printf(", \"first_grad_norm_abnormal\": ");
    jstep(r->first_grad_bad);
    printf(",\n  \"logp_diff\": ");
    if (!r->logp_series) printf("null");
    else {
        printf("{\"series\": ");
        json_fput_str(stdout, r->logp_series);
        printf(", \"step\": %lld, \"value\": ", (long long)r->logp_step);
        jnum(r->logp_value);
        printf(", \"points_over\": %zu}", r->logp_over);
    }
    printf("}");
}

static void print_json(const struct cv_run *p, const struct cv_run *b, const struct curves_verdict *v,
                       const struct curves_verdict_opts *o, const struct cv_dump *d) {
    printf("{\"threshold\": %.17g, \"window\": %d,\n \"first_misaligned\": ", o->threshold, o->window);
    if (!v->misaligned) printf("null");
    else {
        printf("{\"series\": ");
        json_fput_str(stdout, v->mis_series);
        printf(", \"bench_series\": ");
        json_fput_str(stdout, v->loss_b);
        printf(", \"step\": %lld, \"rel_err\": ", (long long)v->mis_step);
        jnum(v->mis_rel);
        printf("}");
    }
    printf(",\n \"error_growth\": ");
    if (!b || !v->common) printf("null");
    else {
        printf("{\"common_steps\": %zu, \"first_step\": %lld, \"from_start\": %s, \"first\": ", v->common,
               (long long)v->first_common, v->from_start ? "true" : "false");
        jnum(v->rel_first);
        printf(", \"last\": ");
        jnum(v->rel_last);
        printf(", \"max\": ");
        jnum(v->rel_max);
        printf(", \"max_step\": ");
        jstep(v->rel_max_step);
        printf("}");
    }
    printf(",\n \"grad_norm_misaligned\": ");
    jstep(v->grad_mis_step);
    printf(", \"reward_below\": ");
    if (!v->reward_below) printf("null");
    else {
        printf("{\"step\": %lld, \"rel\": ", (long long)v->reward_step);
        jnum(v->reward_rel);
        printf("}");
    }
    printf(",\n \"problem\": ");
    json_run(p, &v->problem);
    printf(",\n \"bench\": ");
    if (b) json_run(b, &v->bench);
    else printf("null");
    printf(",\n \"verdict\": \"%s\", \"at\": ", curves_verdict_name(v));
    jstep(v->at);
    printf(", \"why\": ");
    json_fput_str(stdout, v->why);
    printf(",\n \"dump_root\": ");
    if (d->root) json_fput_str(stdout, d->root);
    else printf("null");
    printf(",\n \"dump_next\": [");
    for (size_t i = 0; i < v->ndump; i++) {
        printf("%s{\"step\": %lld, \"pass\": \"%s\"", i ? ", " : "", (long long)v->dump[i].step, v->dump[i].pass);
        if (d->root) printf(", \"in_dump\": %s, \"rank_dirs\": %d", d->ranks[i] > 0 ? "true" : "false", d->ranks[i]);
        printf("}");
    }
    printf("]}\n");
}

/* ---- text ---- */

static void text_run(const char *what, const struct cv_run *run, const struct curves_run_report *r) {
    const struct curves *c = run->ds->curves;
    printf("%-8s %s (%s): %zu series, steps %lld..%lld\n", what, CMD_ESC(run->path), formats_name(run->ds->format),
           c->nseries, (long long)c->first_step, (long long)c->last_step);
    printf("         spikes: %zu step(s)", r->spike_steps);
    for (size_t i = 0; i < r->nspikes && i < 8; i++)
        printf("%s %s %s at %lld (%.4g, median %.4g)", i ? "," : "", CMD_ESC(r->spikes[i].series),
               r->spikes[i].back ? "spike" : "jump", (long long)r->spikes[i].step, r->spikes[i].value, r->spikes[i].median);
    if (r->nspikes > 8) printf(", ...");
    printf("\n         non-finite: %zu step(s)", r->nonfinite_steps);
    for (size_t i = 0; i < r->nnonfinite && i < 8; i++)
        printf("%s %s %s at %lld", i ? "," : "", CMD_ESC(r->nonfinite[i].series), nonfinite_text(r->nonfinite[i].value),
               (long long)r->nonfinite[i].step);
    if (r->nnonfinite > 8) printf(", ...");
    printf("\n         skipped iterations: ");
    if (r->skipped < 0) printf("-");
    else printf("%g", r->skipped);
    printf(", nan iterations: ");
    if (r->nan_iters < 0) printf("-");
    else printf("%g", r->nan_iters);
    printf(", loss-scale drops: %zu", r->ndrops);
    if (r->came_first) printf(", came first: %s", r->came_first);
    if (r->logp_series)
        printf("\n         %s over the limit from step %lld (%.4g, %zu points)", CMD_ESC(r->logp_series),
               (long long)r->logp_step, r->logp_value, r->logp_over);
    printf("\n");
}

static void print_text(const struct cv_run *p, const struct cv_run *b, const struct curves_verdict *v,
                       const struct curves_verdict_opts *o, const struct cv_dump *d) {
    text_run("problem", p, &v->problem);
    if (b) text_run("bench", b, &v->bench);
    if (b && v->loss_p && v->loss_b) {
        printf("loss     %s against %s: %zu common steps, relative error %.3g at the first, %.3g at the last, "
               "%.3g at most (step %lld)\n", CMD_ESC(v->loss_p), CMD_ESC(v->loss_b), v->common, v->rel_first,
               v->rel_last, v->rel_max, (long long)v->rel_max_step);
        if (v->misaligned)
            printf("first misaligned step: %lld (relative error %.3g; threshold %g %%, window %d)%s\n",
                   (long long)v->mis_step, v->mis_rel, o->threshold * 100, o->window, v->from_start ? ", from the start" : "");
        else
            printf("first misaligned step: none (threshold %g %%, window %d)\n", o->threshold * 100, o->window);
    } else if (b)
        printf("loss     no loss series in %s: the runs are not compared step by step\n",
               v->loss_p ? "the benchmark" : "the problem run");
    printf("verdict  %s: %s\n", curves_verdict_name(v), CMD_ESC(v->why));
    for (size_t i = 0; i < v->ndump; i++) {
        printf("dump     the %s of step %lld", v->dump[i].pass, (long long)v->dump[i].step);
        if (d->root && d->ranks[i] > 0) printf(": in %s (%d rank folders)", CMD_ESC(d->root), d->ranks[i]);
        else if (d->root) printf(": not in %s", CMD_ESC(d->root));
        printf("\n");
    }
}

/* ---- CSV: one row per finding ---- */

/* A quoted field: no control byte reaches a terminal (pt_unctrl, as the
 * other commands' CSV); without memory, the text's escaped start. */
static void csv_str(const char *s) {
    char *own;
    char tmp[2048];
    if (!s) s = "";
    const char *t = pt_unctrl(s, &own);
    if (!t) t = pt_escape(s, strlen(s), tmp, sizeof tmp);
    putchar('"');
    for (const char *p = t; *p; p++) {
        if (*p == '"') putchar('"');
        putchar(*p);
    }
    putchar('"');
    free(own);
}

static void csv_run(const char *run, const struct curves_run_report *r) {
    for (size_t i = 0; i < r->nspikes; i++) {
        printf("%s,%s,", r->spikes[i].back ? "spike" : "jump", run);
        csv_str(r->spikes[i].series);
        printf(",%lld,%.17g,median %.17g\n", (long long)r->spikes[i].step, r->spikes[i].value, r->spikes[i].median);
    }
    for (size_t i = 0; i < r->nnonfinite; i++) {
        printf("nonfinite,%s,", run);
        csv_str(r->nonfinite[i].series);
        printf(",%lld,%s,\n", (long long)r->nonfinite[i].step, nonfinite_text(r->nonfinite[i].value));
    }
    for (size_t i = 0; i < r->ndrops; i++)
        printf("loss_scale_drop,%s,,%lld,%.17g,from %.17g\n", run, (long long)r->drops[i].step, r->drops[i].to,
               r->drops[i].from);
    if (r->logp_series) {
        printf("logp_diff,%s,", run);
        csv_str(r->logp_series);
        printf(",%lld,%.17g,%zu points over\n", (long long)r->logp_step, r->logp_value, r->logp_over);
    }
}

static void print_csv(const struct cv_run *b, const struct curves_verdict *v, const struct cv_dump *d) {
    printf("kind,run,series,step,value,detail\n");
    if (v->misaligned) {
        printf("first_misaligned,problem,");
        csv_str(v->mis_series);
        printf(",%lld,", (long long)v->mis_step);
        if (isfinite(v->mis_rel)) printf("%.17g", v->mis_rel);
        printf(",relative error%s\n", v->from_start ? ", from the start" : "");
    }
    csv_run("problem", &v->problem);
    if (b) csv_run("bench", &v->bench);
    printf("verdict,,,");
    if (v->at != CURVES_NO_STEP) printf("%lld", (long long)v->at);
    printf(",%s,", curves_verdict_name(v));
    csv_str(v->why);
    printf("\n");
    for (size_t i = 0; i < v->ndump; i++) {
        printf("dump_next,,,%lld,%s,", (long long)v->dump[i].step, v->dump[i].pass);
        if (d->root) printf("%s (%d rank folders)", d->ranks[i] > 0 ? "in the dump" : "not in the dump", d->ranks[i]);
        printf("\n");
    }
}

/* ---- the command ---- */

static struct dataset *load_run(const char *path, const struct load_opts *given) {
    struct load_opts lo = *given;
    /* --pattern: a file no reader but the dump row's fallback claims is a
     * text log of the user's shape (this command's --format is its output's) */
    struct stat st;
    const struct formats_row *f = lo.npatterns && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? formats_detect(path) : NULL;
    if (lo.npatterns && S_ISREG(st.st_mode) && (!f || !strcmp(f->name, "dump"))) lo.format = formats_find("log");
    struct dataset *ds = cmd_load(path, &lo);
    if (ds && !ds->curves) {
        fprintf(stderr, "probetop curves: %s is %s%s, not training curves\n", CMD_ESC(path),
                ds->format ? "a " : "", ds->format ? ds->format->what : "no curves");
        dataset_free(ds);
        return NULL;
    }
    return ds;
}

/* The rank folders of each pass's step under d->root; -1 when the root
 * holds no step folder (EXIT_USAGE then). */
static int check_dump(struct cv_dump *d, const struct curves_verdict *v) {
    struct util_rankdirs rd = {0};
    int steps = util_scan_root(d->root, &rd, NULL, NULL);
    if (steps <= 0) {
        util_rankdirs_free(&rd);
        fprintf(stderr, "probetop curves: --dump %s: %s\n", CMD_ESC(d->root),
                steps < 0 ? "out of memory" : "no step<N> folder: not a dump root");
        return -1;
    }
    for (size_t k = 0; k < v->ndump; k++) {
        d->ranks[k] = 0;
        for (size_t i = 0; i < rd.n; i++) d->ranks[k] += rd.v[i].step == v->dump[k].step;
    }
    util_rankdirs_free(&rd);
    return 0;
}

static int parse_threshold(const char *s, double *out) {
    char *e;
    double p = strtod(s, &e);
    if (e == s || (*e && strcmp(e, "%")) || !isfinite(p) || p <= 0 || p >= 1e6) {
        fprintf(stderr, "probetop curves: --threshold wants a percentage above 0 (1 or 1%% for 1 %%), not '%s'\n",
                CMD_ESC(s));
        return -1;
    }
    *out = p / 100;
    return 0;
}

static int options(int argc, char **argv, const char **paths, int *np, enum cv_format *fmt,
                   struct curves_verdict_opts *o, const char **dump, struct load_opts *lo) {
    for (int i = 1; i < argc; i++) {
        int m = 0, bad = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--format", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (!strcmp(v, "text")) *fmt = CV_TEXT;
            else if (!strcmp(v, "csv")) *fmt = CV_CSV;
            else if (!strcmp(v, "json")) *fmt = CV_JSON;
            else {
                fprintf(stderr, "probetop curves: --format must be text, csv or json, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
        } else if ((v = opt_value(argc, argv, &i, "--threshold", &m, &bad)) || m) {
            if (bad || parse_threshold(v, &o->threshold) != 0) return EXIT_USAGE;
        } else if ((v = opt_value(argc, argv, &i, "--window", &m, &bad)) || m) {
            long w;
            if (bad) return EXIT_USAGE;
            if (opt_int(v, 1, 1000000, &w) != 0) {
                fprintf(stderr, "probetop curves: --window wants a number of steps, 1 to 1000000, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
            o->window = (int)w;
        } else if ((v = opt_value(argc, argv, &i, "--dump", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            *dump = v;
        } else if ((v = opt_value(argc, argv, &i, "--pattern", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (load_opts_add_pattern(lo, v) != 0) {
                fprintf(stderr, "probetop curves: --pattern takes NAME=REGEX (at most %d), not '%s'\n", LOAD_MAX_PATTERNS, CMD_ESC(v));
                return EXIT_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            int n = 0;
            return cmd_operand(&cmd_curves_entry, argv[i], paths, &n);   /* says: unknown option */
        } else if (*np >= 2) {
            fprintf(stderr, "probetop curves: PROBLEM and BENCH given already: '%s' is one too many\nusage: %s\n",
                    CMD_ESC(argv[i]), cmd_curves_entry.usage);
            return EXIT_USAGE;
        } else paths[(*np)++] = argv[i];
    }
    return cmd_operands_done(&cmd_curves_entry, *np);
}

static int run(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL}, *dump = NULL;
    int np = 0;
    enum cv_format fmt = CV_TEXT;
    struct curves_verdict_opts o;
    curves_verdict_defaults(&o);
    struct load_opts lo;
    load_opts_init(&lo);
    int rc = options(argc, argv, paths, &np, &fmt, &o, &dump, &lo);
    if (rc != 0) return rc;
    struct cv_run p = {paths[0], load_run(paths[0], &lo)}, b = {paths[1], NULL};
    if (!p.ds) return EXIT_USAGE;
    if (np == 2 && !(b.ds = load_run(paths[1], &lo))) {
        dataset_free(p.ds);
        return EXIT_USAGE;
    }
    struct curves_verdict v;
    if (curves_verdict_run(p.ds->curves, b.ds ? b.ds->curves : NULL, &o, &v) != 0) {
        fprintf(stderr, "probetop: out of memory\n");
        rc = EXIT_USAGE;
    } else {
        struct cv_dump d = {dump, {-1, -1}};
        if (dump && check_dump(&d, &v) != 0) rc = EXIT_USAGE;
        else {
            if (fmt == CV_JSON) print_json(&p, b.ds ? &b : NULL, &v, &o, &d);
            else if (fmt == CV_CSV) print_csv(b.ds ? &b : NULL, &v, &d);
            else print_text(&p, b.ds ? &b : NULL, &v, &o, &d);
            rc = v.found ? EXIT_FOUND : EXIT_OK;
        }
        curves_verdict_free(&v);
    }
    dataset_free(p.ds);
    dataset_free(b.ds);
    return rc;
}

const struct cmd_entry cmd_curves_entry = {
    .name = "curves",
    .usage = "probetop curves PROBLEM [BENCH] [--format text|csv|json] [--threshold P] [--window N] [--dump DIR]\n"
             "                       [--pattern NAME=REGEX]...",
    .summary = "training curves vs the benchmark: first misaligned step, spikes, NaNs, what to dump",
    .help = "  --format F           text (default), csv (one row per finding) or json (for CI: first_misaligned,\n"
            "                       problem and bench with series, spikes, nonfinite, skipped; verdict, dump_next)\n"
            "  --threshold P        the loss's relative error |p-b|/|b| above which a step is misaligned, in\n"
            "                       percent (default 1, the guide's; 0.5 or 0.5% for 0.5 %)\n"
            "  --window N           steps the error must stay above it (default 3: one or two noisy steps\n"
            "                       are no misalignment)\n"
            "  --dump DIR           a dump root of the problem run (stepN/rankR/): say whether the steps to\n"
            "                       dump next are in it\n"
            "  --pattern NAME=REGEX a text log's series NAME: the lines REGEX matches, its groups\n"
            "                       (?<step>...) and (?<value>...); repeatable (probetop-formats(5))\n"
            "PROBLEM and BENCH are training curves (a text log, event files, a CSV or JSONL export; see\n"
            "--format in probetop(1)), the runs aligned on the training step; BENCH left out, the problem\n"
            "run alone (spikes, NaNs).\n"
            "Exit 0 aligned (clean), 1 misaligned, or more NaN/spike steps than the benchmark, 2 bad input.\n"
            "The rules: probetop-rules(7), TRAINING CURVES.\n",
    .run = run,
};
