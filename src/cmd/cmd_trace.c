/* cmd_trace: `probetop trace`, the temporal breakdown of profiler traces
 * per rank (and per step) as HolisticTraceAnalysis defines it, and the
 * straggler of each step (probetop-rules(7), PROFILER TRACES).  The
 * figures are the model's (model/trace/trace.c); this file parses the options
 * and prints text, CSV or JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/tpatterns.h"
#include "model/trace/trace.h"
#include "model/util/util.h"
#include "src/cmd/cmd.h"
#include "src/cmd/cmd_trace_ascend.h"
#include "src/cmd/cmd_trace_tables.h"
#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/common/json.h"
#include "src/cmd/trace_kernels_csv.h"
#include "src/cmd/trace_phases_out.h"
#include "src/cmd/trace_range_out.h"
#include "src/cmd/trace_shard.h"
#include "src/io/trace/tpatterns_file.h"
#include <unistd.h>

enum tr_format { TR_TEXT, TR_CSV, TR_JSON };

static double us(int64_t ns) { return (double)ns / 1000.0; }
static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

/* The (step, rank) pairs in step order, then rank order: *out[i] = {rank index, step index}. */
struct step_cell { int r, s; int32_t step; };

static int cmp_cell(const void *a, const void *b) {
    const struct step_cell *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    return (x->r > y->r) - (x->r < y->r);
}

static struct step_cell *step_cells(const struct trace_run *run, size_t *n) {
    size_t k = 0;
    for (int r = 0; r < run->nranks; r++) k += (size_t)run->ranks[r].nsteps;
    struct step_cell *v = malloc((k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    k = 0;
    for (int r = 0; r < run->nranks; r++)
        for (int s = 0; s < run->ranks[r].nsteps; s++) v[k++] = (struct step_cell){r, s, run->ranks[r].steps[s].step};
    if (k > 1) qsort(v, k, sizeof *v, cmp_cell);
    *n = k;
    return v;
}

static void text_row(const char *lead, const struct trace_stats *s) {
    double ov = trace_overlap_pct(s);
    char ovs[16];
    if (isnan(ov)) snprintf(ovs, sizeof ovs, "-");
    else snprintf(ovs, sizeof ovs, "%.2f", ov);
    printf("%s %12.0f %12.0f %6.2f %12.0f %6.2f %14.0f %6.2f %8s %8zu\n", lead, us(s->kernel_ns), us(s->idle_ns),
           pct(s->idle_ns, s->kernel_ns), us(s->cat_ns[TRACE_COMPUTE]), pct(s->cat_ns[TRACE_COMPUTE], s->kernel_ns),
           us(s->non_compute_ns), pct(s->non_compute_ns, s->kernel_ns), ovs, s->nkernels);
}

static void print_text(const struct trace_run *run, int per_step, const struct step_cell *c, size_t nc,
                       const struct trace_straggler *g, size_t ng) {
    printf("rank    kernel_us      idle_us  idle%%   compute_us  comp%% non_compute_us  non%% overlap%%  kernels\n");
    for (int r = 0; r < run->nranks; r++) {
        char lead[16];
        snprintf(lead, sizeof lead, "%4d", run->ranks[r].rank);
        text_row(lead, &run->ranks[r].total);
    }
    if (per_step) {
        printf("\nstep        rank    kernel_us      idle_us  idle%%   compute_us  comp%% non_compute_us  non%% overlap%%  kernels\n");
        for (size_t i = 0; i < nc; i++) {
                int r = c[i].r, s = c[i].s;
                char lead[32];
                snprintf(lead, sizeof lead, "%-11d %4d", run->ranks[r].steps[s].step, run->ranks[r].rank);
                text_row(lead, &run->ranks[r].steps[s].stats);
            }
    }
    if (ng) {
        printf("\nstragglers (work = kernel time less exposed communication)\n");
        printf("step        slowest      work_us    median_us    behind_us  behind%%  ranks\n");
        for (size_t i = 0; i < ng; i++)
            printf("%-11d %7d %12.0f %12.0f %12.0f %8.2f %6d\n", g[i].step, g[i].rank, us(g[i].work), us(g[i].median),
                   us(g[i].work - g[i].median), pct(g[i].work - g[i].median, g[i].median), g[i].nranks);
    }
}

static void csv_row(int32_t step, int has_step, int32_t rank, const struct trace_stats *s) {
    double ov = trace_overlap_pct(s);
    if (has_step) printf("%d,", step);
    else printf(",");
    printf("%d,%.3f,%.3f,%.4f,%.3f,%.4f,%.3f,%.4f,%.3f,%.3f,", rank, us(s->kernel_ns), us(s->idle_ns),
           pct(s->idle_ns, s->kernel_ns), us(s->cat_ns[TRACE_COMPUTE]), pct(s->cat_ns[TRACE_COMPUTE], s->kernel_ns),
           us(s->non_compute_ns), pct(s->non_compute_ns, s->kernel_ns), us(s->cat_ns[TRACE_COMM]), us(s->cat_ns[TRACE_MEMORY]));
    if (isnan(ov)) printf(",");
    else printf("%.4f,", ov);
    printf("%zu\n", s->nkernels);
}

static void print_csv(const struct trace_run *run, int per_step, const struct step_cell *c, size_t nc) {
    printf("step,rank,kernel_us,idle_us,idle_pct,compute_us,compute_pct,non_compute_us,non_compute_pct,"
           "communication_us,memory_us,overlap_pct,kernels\n");
    for (int r = 0; r < run->nranks; r++) csv_row(0, 0, run->ranks[r].rank, &run->ranks[r].total);
    if (per_step)
        for (size_t i = 0; i < nc; i++)
            csv_row(c[i].step, 1, run->ranks[c[i].r].rank, &run->ranks[c[i].r].steps[c[i].s].stats);
}

static void json_stats(const struct trace_stats *s) {
    double ov = trace_overlap_pct(s);
    printf("\"kernel_us\": %.3f, \"idle_us\": %.3f, \"compute_us\": %.3f, \"non_compute_us\": %.3f, "
           "\"communication_us\": %.3f, \"memory_us\": %.3f, \"overlapped_us\": %.3f, "
           "\"idle_pct\": %.4f, \"compute_pct\": %.4f, \"non_compute_pct\": %.4f, \"overlap_pct\": ",
           us(s->kernel_ns), us(s->idle_ns), us(s->cat_ns[TRACE_COMPUTE]), us(s->non_compute_ns),
           us(s->cat_ns[TRACE_COMM]), us(s->cat_ns[TRACE_MEMORY]), us(s->overlap_ns), pct(s->idle_ns, s->kernel_ns),
           pct(s->cat_ns[TRACE_COMPUTE], s->kernel_ns), pct(s->non_compute_ns, s->kernel_ns));
    if (isnan(ov)) printf("null");
    else printf("%.4f", ov);
    printf(", \"kernels\": %zu", s->nkernels);
}

static void print_json(const struct dataset *ds, const struct trace_run *run, int per_step, const struct step_cell *c,
                       size_t nc, const struct trace_straggler *g, size_t ng, size_t top) {
    printf("{\"path\": ");
    json_fput_str(stdout, ds->path);
    printf(", \"ranks\": [");
    for (int r = 0; r < run->nranks; r++) {
        printf("%s\n  {\"rank\": %d, ", r ? "," : "", run->ranks[r].rank);
        json_stats(&run->ranks[r].total);
        printf(", \"steps\": %d, \"file\": ", run->ranks[r].nsteps);
        json_fput_str(stdout, run->ranks[r].file);
        printf("}");
    }
    printf("]");
    if (per_step) {
        printf(",\n \"steps\": [");
        int first = 1;
        for (size_t i = 0; i < nc; i++) {
                int r = c[i].r;
                const struct trace_step *st = &run->ranks[r].steps[c[i].s];
                printf("%s\n  {\"step\": %d, \"rank\": %d, ", first ? "" : ",", st->step, run->ranks[r].rank);
                json_stats(&st->stats);
                printf(", \"start_us\": %.3f, \"end_us\": %.3f}", us(st->start_ns), us(st->end_ns));
                first = 0;
            }
        printf("]");
    }
    printf(",\n \"stragglers\": [");
    for (size_t i = 0; i < ng; i++)
        printf("%s\n  {\"step\": %d, \"rank\": %d, \"work_us\": %.3f, \"median_us\": %.3f, \"behind_us\": %.3f, "
               "\"behind_pct\": %.4f, \"ranks\": %d}",
               i ? "," : "", g[i].step, g[i].rank, us(g[i].work), us(g[i].median), us(g[i].work - g[i].median),
               pct(g[i].work - g[i].median, g[i].median), g[i].nranks);
    printf("]");
    cmd_trace_tables_json(run, top);
    if (trace_phases_out_json(run)) fprintf(stderr, "probetop: out of memory (the phases table)\n");
    printf(",\n \"warnings\": [");
    for (size_t i = 0; i < ds->nwarnings; i++) {
        printf(i ? ", " : "");
        json_fput_str(stdout, ds->warnings[i]);
    }
    printf("]");
    printf("}\n");
}

/* --shard: the checks, then *path becomes a folder of links to the
 * shard's trace files (indir).  0, or -1 with a message. */
static int shard_inputs(const char **path, const char *out, int other, int shard_k, int shard_n, char *indir, size_t cap,
                        struct shard_json_info *info) {
    if (!out) {
        fprintf(stderr, "probetop trace: --shard writes DIR/trace.shard-K-of-N.json: give -o DIR\n");
        return -1;
    }
    if (other) {
        fprintf(stderr, "probetop trace: --shard writes every table (JSON): no --format, --per-step, --phases or --kernels with it\n");
        return -1;
    }
    size_t nf, total;
    if (trace_shard_inputs(*path, shard_k, shard_n, out, indir, cap, &nf, &total, info->hash)) return -1;
    info->k = shard_k, info->n = shard_n, info->files = (long)total;
    fprintf(stderr, "probetop trace: shard %d of %d: trace files %zu..%zu of %zu (a contiguous block in name order)\n",
            shard_k, shard_n, nf ? (size_t)((unsigned long long)total * (unsigned)(shard_k - 1) / (unsigned)shard_n) + 1 : 0,
            (size_t)((unsigned long long)total * (unsigned)shard_k / (unsigned)shard_n), total);
    if (!nf) {
        trace_shard_inputs_free(indir);
        fprintf(stderr, "probetop trace: shard %d of %d has no trace file of its own (more tasks than files)\n", shard_k, shard_n);
        return -1;
    }
    *path = indir;
    return 0;
}

/* An option with a string value: 1 when argv[*i] is it (*bad: its value missing). */
static int str_opt(int argc, char **argv, int *i, const char *name, const char **dst, int *bad) {
    int m = 0;
    const char *v = opt_value(argc, argv, i, name, &m, bad);
    if (!v && !m) return 0;
    if (!*bad) *dst = v;
    return 1;
}

/* --from US, --to US, --step N at argv[*i]: 1 taken, 0 not these, -1 a usage error (said). */
static int range_opt(int argc, char **argv, int *i, double *rng, int *has_rng, int32_t *rstep, int *has_step) {
    static const char *const ropt[] = {"--from", "--to", "--step"};
    int k = 0, m = 0, bad = 0;
    const char *v = NULL;
    for (; k < 3 && !(v = opt_value(argc, argv, i, ropt[k], &m, &bad)) && !m; k++) {}
    if (k == 3) return 0;
    if (bad) return -1;
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x) || (k == 2 && (x != floor(x) || fabs(x) > 2e9))) {
        char esc[256];
        fprintf(stderr, "probetop trace: %s wants %s, not '%s'\n", ropt[k],
                k == 2 ? "a step number" : "microseconds from the step's start", pt_escape(v, strlen(v), esc, sizeof esc));
        return -1;
    }
    if (k == 2) *rstep = (int32_t)x, *has_step = 1;
    else rng[k] = x, has_rng[k] = 1;
    return 1;
}

/* What `probetop trace` prints of a loaded run (or writes as a shard), the
 * dataset freed; the command's exit code. */
static int print_all(struct dataset *ds, enum tr_format fmt, int per_step, int phases, int table, size_t top,
                     const char *out, const struct shard_json_info *shard) {
    struct trace_straggler *g = NULL;
    size_t ng = 0;
    if (trace_stragglers(ds->trace, &g, &ng) != 0) {
        fprintf(stderr, "probetop: out of memory\n");
        dataset_free(ds);
        return EXIT_USAGE;
    }
    size_t nc = 0;
    struct step_cell *c = step_cells(ds->trace, &nc);
    if (!c) {
        fprintf(stderr, "probetop: out of memory\n");
        free(g);
        dataset_free(ds);
        return EXIT_USAGE;
    }
    int oom = 0;
    if (shard) {
        char name[4096 + 64];
        trace_shard_name(out, shard->k, shard->n, name, sizeof name);
        if (trace_shard_write(name, ds, shard)) {
            free(c);
            free(g);
            dataset_free(ds);
            return EXIT_USAGE;
        }
    } else if (fmt == TR_JSON) print_json(ds, ds->trace, per_step, c, nc, g, ng, top);
    else if (fmt == TR_CSV && phases) oom = trace_phases_out_csv(ds->trace);
    else if (fmt == TR_CSV && table != CMD_TRACE_BREAKDOWN) cmd_trace_tables_csv(ds->trace, table, top);
    else if (fmt == TR_CSV) print_csv(ds->trace, per_step, c, nc);
    else {
        print_text(ds->trace, per_step, c, nc, g, ng);
        cmd_trace_tables_text(ds->trace, top);
    }
    if (fmt == TR_TEXT && phases) {
        printf("\nphases (micro - : the step's kernels outside any micro-batch)\n");
        oom = trace_phases_out_text(ds->trace);
    }
    if (oom) fprintf(stderr, "probetop: out of memory (the phases table)\n");
    free(c);
    free(g);
    dataset_free(ds);
    return EXIT_OK;
}

/* --merge: the shards of paths[0..n) printed as one run, or written to
 * the shard file out; the command's exit code. */
static int merge_all(char *const *paths, int n, const char *out, enum tr_format fmt, int per_step, int phases, int table,
                     size_t top) {
    struct dataset *ds;
    if (trace_shard_merge(paths, n, out, &ds)) return EXIT_USAGE;
    if (!ds) return EXIT_OK;
    return print_all(ds, fmt, per_step || fmt == TR_JSON, phases, table, top, NULL, NULL);
}

/* What `probetop trace` was asked (run's options). */
struct trace_args {
    const char *path;
    enum tr_format fmt;
    int per_step, np, phases, table;
    size_t top;              /* HTA's num_kernels */
    uint64_t mem;            /* 0: the default (util_default_mem) */
    const char *kernels, *patterns, *out, *merge;
    int shard_k, shard_n;
    double rng[2];           /* --from, --to (us from the step's start) */
    int has_rng[2], has_step;
    int32_t rstep;
    char *mlist[64];         /* --merge A [B ...]: the inputs after A */
    int nm;
};

/* --format, --mem, --table or --top at argv[*i]: 1 taken, 0 not these, -1 a usage error (said). */
static int value_opt(int argc, char **argv, int *i, struct trace_args *a) {
    int m = 0, bad = 0;
    const char *v;
    char esc[256];
    if ((v = opt_value(argc, argv, i, "--format", &m, &bad)) || m) {
        if (bad) return -1;
        if (!strcmp(v, "text")) a->fmt = TR_TEXT;
        else if (!strcmp(v, "csv")) a->fmt = TR_CSV;
        else if (!strcmp(v, "json")) a->fmt = TR_JSON;
        else {
            fprintf(stderr, "probetop trace: --format must be text, csv or json, not '%s'\n", pt_escape(v, strlen(v), esc, sizeof esc));
            return -1;
        }
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--mem", &m, &bad)) || m) {
        if (bad) return -1;
        if (util_parse_size(v, &a->mem) < 0 || a->mem == 0) {
            fprintf(stderr, "probetop trace: --mem wants a size such as 512M or 2G, not '%s'\n", pt_escape(v, strlen(v), esc, sizeof esc));
            return -1;
        }
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--table", &m, &bad)) || m) {
        if (bad) return -1;
        if ((a->table = cmd_trace_tables_parse(v)) < 0) {
            fprintf(stderr, "probetop trace: --table must be breakdown, kernel_types, top_kernels or idle, not '%s'\n",
                    pt_escape(v, strlen(v), esc, sizeof esc));
            return -1;
        }
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--top", &m, &bad)) || m) {
        char *end;
        if (bad) return -1;
        unsigned long long k = strtoull(v, &end, 10);
        if (!*v || *end || *v == '-' || k > 1000000000ull) {
            fprintf(stderr, "probetop trace: --top wants a count of kernels (0: all), not '%s'\n", pt_escape(v, strlen(v), esc, sizeof esc));
            return -1;
        }
        a->top = (size_t)k;
        return 1;
    }
    return 0;
}

/* The command line into *a: 0, or EXIT_USAGE (said). */
static int parse_args(int argc, char **argv, struct trace_args *a) {
    for (int i = 1; i < argc; i++) {
        int m = 0, bad = 0, k;
        const char *v;
        if (!strcmp(argv[i], "--per-step")) { a->per_step = 1; continue; }
        if (!strcmp(argv[i], "--phases")) { a->phases = 1; continue; }
        if (str_opt(argc, argv, &i, "--kernels", &a->kernels, &bad) || str_opt(argc, argv, &i, "--patterns", &a->patterns, &bad) ||
            str_opt(argc, argv, &i, "-o", &a->out, &bad) || str_opt(argc, argv, &i, "--merge", &a->merge, &bad)) {
            if (bad) return EXIT_USAGE;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--shard", &m, &bad)) || m) {
            if (bad || cmd_shard_parse("trace", v, &a->shard_k, &a->shard_n) != 0) return EXIT_USAGE;
            continue;
        }
        if ((k = value_opt(argc, argv, &i, a)) < 0) return EXIT_USAGE;
        if (k) continue;
        if ((k = range_opt(argc, argv, &i, a->rng, a->has_rng, &a->rstep, &a->has_step)) < 0) return EXIT_USAGE;
        if (k) continue;
        if (a->merge && argv[i][0] != '-') {
            if (a->nm == 64) {
                fprintf(stderr, "probetop trace: --merge takes at most 64 folders or files (give their folder)\n");
                return EXIT_USAGE;
            }
            a->mlist[a->nm++] = argv[i];
            continue;
        }
        if (cmd_operand(&cmd_trace_entry, argv[i], &a->path, &a->np) != 0) return EXIT_USAGE;
    }
    return 0;
}

/* The traces at a->path loaded (through --shard's links when asked),
 * then printed: the command's exit code. */
static int load_print(struct trace_args *a) {
    const char *path = a->path;
    char indir[4096];
    struct shard_json_info shard = {0};
    const char *src = path;   /* --shard: the traces' folder, before path becomes the links' */
    if (a->shard_n && shard_inputs(&path, a->out, a->kernels || a->phases || a->per_step || a->fmt != TR_TEXT, a->shard_k,
                                   a->shard_n, indir, sizeof indir, &shard))
        return EXIT_USAGE;
    if (cmd_trace_ascend_is(path))   /* torch_npu's or msprof-analyze's step time table */
        return cmd_trace_ascend(path, a->fmt == TR_JSON ? 2 : a->fmt == TR_CSV ? 1 : 0, a->per_step, a->mem);
    struct load_opts lo;
    load_opts_init(&lo);
    const struct formats_row *sh = formats_find("trace_shard");
    lo.format = !a->shard_n && formats_detect(path) == sh ? sh : formats_find("trace");   /* a folder of shards: their run */
    if (lo.format == sh && (a->has_rng[0] || a->kernels || a->patterns)) {   /* a shard keeps no kernel */
        fprintf(stderr, "probetop trace: %s needs the trace files: %s holds trace shards, whose lanes are downsampled%s\n",
                a->kernels ? "--kernels" : a->patterns ? "--patterns" : "--from/--to", CMD_ESC(path),
                a->patterns ? " (give --patterns to --shard)" : "");
        return EXIT_USAGE;
    }
    lo.mem_budget = a->mem;
    lo.trace_axes_only = 1;   /* the cube's axes only: the tables come from the run (ds->trace) */
    struct tpatterns *pat = NULL;
    struct trace_kernels_csv kc;
    struct pt_error e;
    if (a->patterns && !(pat = tpatterns_file_read(a->patterns, &e))) {
        fprintf(stderr, "probetop trace: %s\n", e.msg);
        return EXIT_USAGE;
    }
    lo.trace_patterns = pat;
    if (a->kernels && trace_kernels_csv_open(&kc, a->kernels, &e)) {
        fprintf(stderr, "probetop trace: %s\n", e.msg);
        tpatterns_free(pat);
        return EXIT_USAGE;
    }
    if (a->kernels) lo.trace_kernel = trace_kernels_csv_row, lo.trace_kernel_ctx = &kc;
    struct dataset *ds = cmd_load(path, &lo);
    if (a->shard_n) trace_shard_inputs_free(indir);
    if (a->shard_n && ds && ds->trace && trace_shard_files(ds->trace, indir, src)) {
        fprintf(stderr, "probetop: out of memory\n");
        dataset_free(ds);
        return EXIT_USAGE;
    }
    tpatterns_free(pat);
    if (a->kernels && trace_kernels_csv_close(&kc, ds != NULL, &e)) {
        fprintf(stderr, "probetop trace: %s\n", e.msg);
        dataset_free(ds);
        return EXIT_USAGE;
    }
    if (!ds) return EXIT_USAGE;
    if (a->has_rng[0]) {   /* a time range of one step instead of the tables */
        int rc = trace_range_out(ds->trace, a->fmt == TR_JSON ? 2 : a->fmt == TR_CSV ? 1 : 0, a->has_step, a->rstep, a->rng[0],
                                 a->rng[1]);
        dataset_free(ds);
        return rc ? EXIT_USAGE : EXIT_OK;
    }
    return print_all(ds, a->fmt, a->per_step, a->phases, a->table, a->top, a->out, a->shard_n ? &shard : NULL);
}

static int run(int argc, char **argv) {
    struct trace_args a = {.fmt = TR_TEXT, .table = CMD_TRACE_BREAKDOWN, .top = 10, .nm = 1};
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    if (a.merge) {   /* the shards' run, printed (JSON: every step) or written as one shard file */
        if (a.np || a.shard_n || (a.out && a.fmt != TR_TEXT)) {
            fprintf(stderr, "probetop trace: --merge DIR_OR_FILE... joins shards: no PATH or --shard; with -o FILE no --format\n");
            return EXIT_USAGE;
        }
        a.mlist[0] = (char *)a.merge;
        return merge_all(a.mlist, a.nm, a.out, a.fmt, a.per_step, a.phases, a.table, a.top);
    }
    if (cmd_operands_done(&cmd_trace_entry, a.np) != 0) return EXIT_USAGE;
    if (a.has_rng[0] != a.has_rng[1] || (a.has_rng[0] && a.rng[1] <= a.rng[0])) {
        fprintf(stderr, "probetop trace: --from and --to go together, --from before --to\n");
        return EXIT_USAGE;
    }
    return load_print(&a);
}

const struct cmd_entry cmd_trace_entry = {
    .name = "trace",
    .usage = "probetop trace PATH [--format text|csv|json] [--per-step] [--table T] [--top K] [--phases]\n"
             "                     [--kernels FILE.csv] [--patterns FILE] [--mem SIZE]\n"
             "                     [--from US --to US [--step N]]\n"
             "       probetop trace PATH --shard auto|K/N -o DIR\n"
             "       probetop trace --merge DIR_OR_FILE... [--format text|csv|json | -o FILE]",
    .summary = "where the time goes in profiler traces: idle/compute/communication per rank, stragglers",
    .help = "  --format F           text (default), csv (one row per rank; per step too with --per-step)\n"
            "                       or json (ranks, steps with --per-step, stragglers, warnings)\n"
            "  --per-step           also each (step, rank): the kernels that start in the step\n"
            "  --table T            with csv: breakdown (default), kernel_types, top_kernels or idle\n"
            "                       (text and json give every table)\n"
            "  --top K              top kernels shown per rank, the rest as one 'others' row (default 10;\n"
            "                       0: every kernel)\n"
            "  --phases             the Megatron phases per (step, micro-batch, rank) (csv: instead of the\n"
            "                       ranks; json has them always as phases[], with the process groups)\n"
            "  --kernels FILE.csv   also one row per kernel: rank, step, micro, stream, start_us, dur_us,\n"
            "                       category, phase, name (written to a temporary file, then renamed)\n"
            "  --patterns FILE      classification patterns (KEY = REGEX lines; probetop-formats(5),\n"
            "                       TRACE PATTERNS) instead of the defaults of the keys it names\n"
            "  --from US --to US    instead of the tables, a time range of one step across every rank:\n"
            "                       rank-time per category and per phase (US: microseconds from the\n"
            "                       step's start, the earliest rank's, as the lane view's axis)\n"
            "  --step N             the step of --from/--to (default the first)\n"
            "  --mem SIZE           memory for the kernels (512M, 2G; default a quarter of the machine's,\n"
            "                       at most 1G): beyond it they are sorted through a temporary file and\n"
            "                       the lane view merges them; the figures stay exact\n"
            "  --shard K/N -o DIR   summarise only the K-th of N contiguous blocks of PATH's trace files\n"
            "                       (name order) into DIR/trace.shard-K-of-N.json; auto: K and N from\n"
            "                       mpirun or srun (as data2db --shard)\n"
            "  --merge DIR_OR_FILE...  the shard files of these folders and files as one run (as\n"
            "                       'probetop trace DIR' reads a folder of shards); -o FILE: written\n"
            "                       as one shard file\n"
            "PATH is a Kineto trace (*.json, *.json.gz), torch_npu's trace_view.json, or a folder of them\n"
            "(one per rank).  Figures are HolisticTraceAnalysis's temporal breakdown and\n"
            "communication/computation overlap; see probetop-rules(7), PROFILER TRACES.\n",
    .run = run,
};
